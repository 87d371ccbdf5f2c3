package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawRequest sends head (and body) on a fresh connection and reads the
// answer. A server that waits for a body it should have refused makes the
// read time out, which fails the test.
func rawRequest(t *testing.T, p *adaProc, head string, body []byte) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(15 * time.Second))
	if _, err := conn.Write(append([]byte(head), body...)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to %q: %v", strings.SplitN(head, "\r\n", 2)[0], err)
	}
	defer resp.Body.Close()
	var d detail
	_ = json.NewDecoder(resp.Body).Decode(&d)
	return resp.StatusCode, d.Detail
}

// Each route has its own body limit, enforced from Content-Length before
// the body is read: only the OCR upload may exceed MAX_BODY_BYTES.
func TestBodyLimitsArePerRouteAndCheckedFromContentLength(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, map[string]string{"MAX_BODY_BYTES": "65536", "OCR_MAX_BYTES": "1048576"}))
	declared := func(method, path string, n int) string {
		return fmt.Sprintf("%s %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", method, path, n)
	}
	// A declared size over the limit is refused before any body is sent.
	for _, c := range []struct{ method, path string }{
		{"POST", "/v1/chat"}, {"POST", "/v1/chat/stream"}, {"POST", "/v1/memory"}, {"PATCH", "/v1/memory/x"}, {"POST", "/v1/nowhere"},
	} {
		st, d := rawRequest(t, ada, declared(c.method, c.path, 200_000), nil)
		if st != 413 || !strings.Contains(d, "65536") || !strings.Contains(d, "MAX_BODY_BYTES") {
			t.Errorf("%s %s declaring 200000 bytes: %d %q, want 413 naming MAX_BODY_BYTES", c.method, c.path, st, d)
		}
	}
	// A chunked body has no Content-Length; it is cut off at the limit.
	chunk := bytes.Repeat([]byte("a"), 100_000)
	chunked := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(chunk), chunk)
	st, d := rawRequest(t, ada, "POST /v1/memory HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", []byte(chunked))
	if st != 413 || !strings.Contains(d, "MAX_BODY_BYTES") {
		t.Errorf("chunked 100000-byte body: %d %q, want 413", st, d)
	}
	// The upload route takes more than MAX_BODY_BYTES, up to OCR_MAX_BYTES.
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "big.png")
	_, _ = fw.Write(bytes.Repeat([]byte{0}, 500_000))
	_ = mw.Close()
	head := fmt.Sprintf("POST /v1/ocr/extract HTTP/1.1\r\nHost: localhost\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", mw.FormDataContentType(), form.Len())
	if st, d := rawRequest(t, ada, head, form.Bytes()); st == 413 {
		t.Errorf("a 500000-byte upload under OCR_MAX_BYTES was refused: %q", d)
	}
	st, d = rawRequest(t, ada, fmt.Sprintf("POST /v1/ocr/extract HTTP/1.1\r\nHost: localhost\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n", mw.FormDataContentType(), 5_000_000), nil)
	if st != 413 || !strings.Contains(d, "OCR_MAX_BYTES") {
		t.Errorf("upload declaring 5000000 bytes: %d %q, want 413 naming OCR_MAX_BYTES", st, d)
	}
	// The server is fine afterwards.
	if st := ada.call("GET", "/v1/healthz", nil, nil); st != 200 {
		t.Fatalf("healthz after the refusals: %d", st)
	}
}
