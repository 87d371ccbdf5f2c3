package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/ada-chat/ada/core"
	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// Reading a question's image: fetch the message (decrypted in encrypted
// rooms), download its media within OCR_MAX_BYTES, read it with the
// backend's OCR, and say in plain words what went wrong when that fails.

// imageError marks a failure to read a question's image, so that the
// notice talks about the image, not about the language model.
type imageError struct{ err error }

func (e *imageError) Error() string { return "read image: " + e.err.Error() }
func (e *imageError) Unwrap() error { return e.err }

// noTextFound stands in for the text of an image without any, so the model
// knows an image was read rather than seeing no image at all (the prompt
// leaves out empty sections).
const noTextFound = "(No text could be read in this image.)"

// imageContext reads the question's image, if it has one, for the chat
// request. An image that cannot be read stops being the sender's latest, so
// that their next questions are not failed by it again.
func (md *media) imageContext(ctx context.Context, room id.RoomID, q question) (*core.OCRResult, error) {
	if q.image == nil {
		return nil, nil
	}
	text, err := md.readImage(ctx, q.image)
	if err != nil {
		md.rooms.get(room).dropImage(q.image.id)
		return nil, err
	}
	return &text, nil
}

// readImage downloads an upload's media (decrypting it in encrypted rooms),
// reads it with the backend's OCR, and lets the bytes go: they are never
// written anywhere. Every error is an *imageError.
func (md *media) readImage(ctx context.Context, up *upload) (core.OCRResult, error) {
	res, err := md.ocrUpload(ctx, up)
	if err != nil {
		return core.OCRResult{}, &imageError{err}
	}
	if strings.TrimSpace(res.Text) == "" {
		res.Text = noTextFound
	}
	return res, nil
}

func (md *media) ocrUpload(ctx context.Context, up *upload) (core.OCRResult, error) {
	c := up.content
	max := md.backend.OCRMaxBytes()
	switch mime := mimeOf(c); {
	case max <= 0:
		return core.OCRResult{}, errNoOCR
	case c.MsgType == event.MsgFile && mime != "" && !strings.HasPrefix(mime, "image/"):
		// Refused before downloading: the sender's client says what it is.
		return core.OCRResult{}, core.Errorf(core.KindInvalid, "the file is %s, not an image", mime)
	case c.Info != nil && int64(c.Info.Size) > max:
		return core.OCRResult{}, overLimit(max)
	}
	data, err := md.downloadMedia(ctx, c, max)
	if err != nil {
		return core.OCRResult{}, err
	}
	return md.backend.OCR(ctx, data)
}

// imageFailureText is the notice for an image that could not be read.
func imageFailureText(err error) string {
	msg := strings.TrimSuffix(core.SafeMessage(err), ".")
	switch core.KindOf(err) {
	case core.KindTooLarge:
		return "the image is too large for me to read (" + msg + ")."
	case core.KindInvalid:
		return "I can only read text in images, and I could not read this one (" + msg + ")."
	case core.KindUnavailable:
		return "reading text in images is not available right now (" + msg + ")."
	case core.KindNotFound:
		return "the homeserver no longer has that image."
	case core.KindUnauthorized:
		return "the bridge is not allowed to use Ada's API (check API_KEY)."
	case core.KindCanceled:
		if errors.Is(err, context.DeadlineExceeded) {
			return "reading the image took too long, so I gave up. Please try again."
		}
		return "the request was cancelled. Please try again."
	}
	return "I could not read the text in that image (" + msg + ")."
}

var errNotUpload = errors.New("not an image or file message")

// fetchUpload gets a message from the homeserver, decrypting it in an
// encrypted room, and returns it if it is an upload.
func (md *media) fetchUpload(ctx context.Context, room id.RoomID, eventID id.EventID) (*upload, error) {
	evt, err := md.mx.cli.GetEvent(ctx, room, eventID)
	if err != nil {
		return nil, err
	}
	evt.RoomID = room
	if err := evt.Content.ParseRaw(evt.Type); err != nil && !errors.Is(err, event.ErrContentAlreadyParsed) {
		return nil, err
	}
	if evt.Type == event.EventEncrypted {
		if md.mx.crypto == nil {
			return nil, errors.New("the message is encrypted and encryption is not set up")
		}
		if evt, err = md.mx.crypto.Decrypt(ctx, evt); err != nil {
			return nil, fmt.Errorf("decrypt: %w", err)
		}
	}
	c, ok := evt.Content.Parsed.(*event.MessageEventContent)
	if evt.Type != event.EventMessage || !ok || !isUpload(c) || evt.Unsigned.RedactedBecause != nil {
		return nil, errNotUpload
	}
	return &upload{id: evt.ID, content: c}, nil
}

// downloadMedia fetches an upload's media through the homeserver's
// (authenticated) media API and decrypts it when the message carries an
// encrypted `file`. At most max bytes are read: mautrix's DownloadBytes
// reads without a bound, so the body is capped here, and a declared
// Content-Length over the limit is refused before reading. AES-CTR keeps
// the size, so the cap on the ciphertext is the cap on the image.
func (md *media) downloadMedia(ctx context.Context, c *event.MessageEventContent, max int64) ([]byte, error) {
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
	resp, err := md.mx.cli.Download(ctx, uri)
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
