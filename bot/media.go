package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/core"
)

// downloadMedia fetches an upload's media through the homeserver's
// (authenticated) media API and decrypts it when the message carries an
// encrypted `file`. At most max bytes are read: mautrix's DownloadBytes
// reads without a bound, so the body is capped here, and a declared
// Content-Length over the limit is refused before reading. AES-CTR keeps
// the size, so the cap on the ciphertext is the cap on the image.
func (b *Bot) downloadMedia(ctx context.Context, c *event.MessageEventContent, max int64) ([]byte, error) {
	raw := c.URL
	if c.File != nil {
		raw = c.File.URL
		if err := c.File.PrepareForDecryption(); err != nil {
			return nil, core.Wrap(core.KindInvalid, err, "its encryption details are not valid")
		}
	}
	uri, err := raw.Parse()
	if err == nil && uri.IsEmpty() {
		err = errors.New("no media URL")
	}
	if err != nil {
		return nil, core.Wrap(core.KindInvalid, err, "the message has no valid media address")
	}
	resp, err := b.cli.Download(ctx, uri)
	if err != nil {
		return nil, downloadError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.ContentLength > max {
		return nil, overLimit(max)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	switch {
	case err != nil:
		return nil, downloadError(ctx, err)
	case int64(len(data)) > max:
		return nil, overLimit(max)
	}
	if c.File != nil {
		if err := c.File.DecryptInPlace(data); err != nil {
			return nil, core.Wrap(core.KindInvalid, err, "it could not be decrypted")
		}
	}
	return data, nil
}

// downloadError says in plain words why the media could not be fetched.
func downloadError(ctx context.Context, err error) error {
	var he mautrix.HTTPError
	switch {
	case ctx.Err() != nil:
		return core.Wrap(core.KindCanceled, err, "the download was cancelled")
	case errors.As(err, &he) && he.Response != nil && he.Response.StatusCode == http.StatusNotFound:
		return core.Wrap(core.KindNotFound, err, "the image is not on the homeserver")
	}
	return core.Wrap(core.KindUpstream, err, "it could not be downloaded from the homeserver")
}

// overLimit names only the limit: a rounded size next to it ("32 KiB; the
// limit is 32 KiB") would read as nonsense.
func overLimit(max int64) error {
	return core.Errorf(core.KindTooLarge, "it is larger than the limit of %s", byteSize(max))
}

// byteSize writes a limit the way operators set it (OCR_MAX_BYTES).
func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MiB"
	case n >= 1<<10:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<10)), ".0") + " KiB"
	}
	return fmt.Sprintf("%d bytes", n)
}
