package apiserver

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a log sink the server's goroutines write while the test
// reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestMemberLinkNotLoggedOnBrokenRequest: fasthttp's own errors (a body
// too large, a broken request) are logged with the path and fasthttp's
// message, which quotes the request; a member link's token stays out.
func TestMemberLinkNotLoggedOnBrokenRequest(t *testing.T) {
	var logs lockedBuffer
	ui := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {})
	srv := New(nil, Deps{UI: ui}, testConfig(t, func(c *Config) { c.MaxBodyBytes = 1 << 10 }), slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	base := serveOnLoopback(t, srv, nil)
	const token = "SeCrEtToKeN0123456789abcdefghijklmnopqrstu"
	for _, raw := range []string{
		"POST /ui/login/" + token + " HTTP/1.1\r\nHost: localhost\r\nContent-Length: 999999\r\n\r\n",
		"POST /ui/login/" + token + " HTTP/1.1\r\nHost: localhost\r\nBroken header line\r\n\r\n",
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(conn, raw)
		buf := make([]byte, 512)
		_, _ = conn.Read(buf)            // the error answer: the log line is written before it
		_, _ = io.Copy(io.Discard, conn) // fasthttp closes the connection after it
		conn.Close()
	}
	// Both answers' lines, and fasthttp's own line for the broken header,
	// which it writes once the connection is closed.
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(logs.String(), "/ui/login/…") < 3 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	if got := logs.String(); strings.Contains(got, token) || strings.Count(got, "/ui/login/…") < 3 {
		t.Fatalf("log:\n%s", got)
	}
}
