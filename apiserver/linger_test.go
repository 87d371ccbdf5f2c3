package apiserver

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// body yields left bytes of 'a'.
type body struct{ left int }

func (b *body) Read(p []byte) (int, error) {
	if b.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), b.left)
	for i := range n {
		p[i] = 'a'
	}
	b.left -= n
	return n, nil
}

func TestRefusedBodyStillGetsThe413(t *testing.T) {
	url := serveOnLoopback(t, New(nil, Deps{}, testConfig(t, func(c *Config) { c.MaxBodyBytes, c.UploadMaxBytes = 1<<10, 1<<10 }), slog.New(slog.DiscardHandler)), nil)
	// Far more than the socket buffers hold: the client is still writing
	// when the server answers 413 and closes, which without a lingering
	// close reaches the client as "connection reset by peer" (every time
	// here; in CI, at random with a 2 MiB body).
	const size = 16 << 20
	for i := range 20 {
		req, err := http.NewRequest("POST", url+"/v1/memory",
			&body{left: size})
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = size
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("attempt %d: the client lost the answer: %v", i, err)
		}
		var d struct{ Detail string }
		err = json.NewDecoder(resp.Body).Decode(&d)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || err != nil || !strings.Contains(d.Detail, "MAX_BODY_BYTES") {
			t.Fatalf("attempt %d: %d %q (%v), want 413 naming MAX_BODY_BYTES", i, resp.StatusCode, d.Detail, err)
		}
	}
}

// TestLongURL: a search as long as a long memory's text, percent-encoded
// (10 KiB), is answered; a request line past the limit gets a 431 naming
// it, read by the client whole (a reset connection before), as a JSON
// detail like every error.
func TestLongURL(t *testing.T) {
	url := serveOnLoopback(t, New(nil, Deps{}, testConfig(t, nil), slog.New(slog.DiscardHandler)), nil)
	get := func(n int) (int, string) {
		resp, err := http.Get(url + "/v1/no-such-route?x=" + strings.Repeat("%C3%A9", n/6))
		if err != nil {
			t.Fatalf("%d bytes: the client lost the answer: %v", n, err)
		}
		defer resp.Body.Close()
		var d struct{ Detail string }
		json.NewDecoder(resp.Body).Decode(&d)
		return resp.StatusCode, d.Detail
	}
	if status, detail := get(10 << 10); status != http.StatusNotFound {
		t.Errorf("10 KiB URL: %d %q, want the route's own 404", status, detail)
	}
	for i := range 10 {
		if status, detail := get(64 << 10); status != http.StatusRequestHeaderFieldsTooLarge || !strings.Contains(detail, "16384 bytes") {
			t.Fatalf("attempt %d, 64 KiB URL: %d %q, want 431 naming the limit", i, status, detail)
		}
	}
}
