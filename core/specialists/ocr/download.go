package ocr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"github.com/ada-chat/ada/core"
)

// errBlockedAddress marks a connection refused by publicOnly.
var errBlockedAddress = errors.New("address is private, local or otherwise not public")

// publicClient returns an HTTP client that only connects to public
// addresses. The URL comes from the model, which follows text from users and
// web pages, so without this check it could be steered at the metadata
// service or at our own API. The check runs on the resolved address at
// connect time, which covers redirects and DNS names that point inside.
func publicClient() *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: publicOnly}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = dialer.DialContext
	// Direct connections only: through a proxy the check would see the
	// proxy's address instead of the target's.
	transport.Proxy = nil
	return &http.Client{Transport: transport}
}

func publicOnly(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return err
	}
	ip := ap.Addr().Unmap()
	cgnat := netip.MustParsePrefix("100.64.0.0/10")
	if !ip.IsGlobalUnicast() || ip.IsPrivate() || cgnat.Contains(ip) {
		return fmt.Errorf("%w: %v", errBlockedAddress, ip)
	}
	return nil
}

// download fetches rawURL, refusing anything but http(s) and bodies over
// maxBytes. The content is checked later, by Extract, from its bytes.
func (s *Specialist) download(ctx context.Context, rawURL string) ([]byte, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, core.Errorf(core.KindInvalid, "image_url must be an http or https URL")
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, core.Wrap(core.KindInvalid, err, "image_url must be an http or https URL")
	}
	req.Header.Set("Accept", "image/*")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, downloadError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, core.Errorf(core.KindUpstream, "could not download the image: the server answered HTTP %d", resp.StatusCode)
	}
	limit := s.extractor.MaxBytes()
	tooLarge := core.Errorf(core.KindTooLarge, "the image at image_url is larger than %s", sizeText(limit))
	if resp.ContentLength > limit {
		return nil, tooLarge
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, downloadError(ctx, err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge
	}
	return data, nil
}

func downloadError(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, errBlockedAddress):
		return core.Wrap(core.KindInvalid, err, "image_url points to a private or local network address, which is not allowed")
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return core.Wrap(core.KindUpstream, err, "could not download the image: the server did not answer in time")
	case ctx.Err() != nil:
		return core.Wrap(core.KindCanceled, err, "the image download was canceled")
	default:
		return core.Wrap(core.KindUpstream, err, "could not download the image: the server could not be reached")
	}
}
