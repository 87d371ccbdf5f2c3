package apiserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ada-chat/ada/apiserver/ui"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/metrics"
	"github.com/ada-chat/ada/storage"
)

// realCore is core over a real SQLite store, closed when the test ends.
func realCore(t *testing.T) *core.Service {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}}, core.DefaultOptions())
	t.Cleanup(func() { svc.Close(); db.Close() })
	return svc
}

// TestPageInTheEnvelope: a request to the memory page gets a request id,
// one log line with that id (a member link's token left out), and is
// counted in /metrics under the route "/ui/".
func TestPageInTheEnvelope(t *testing.T) {
	var logs lockedBuffer
	svc := realCore(t)
	reg := prometheus.NewRegistry()
	srv := New(svc, Deps{UI: ui.Handler(svc, ui.Options{APIKey: limitKey}), Metrics: metrics.New(reg, "test"), Gatherer: reg},
		testConfig(t, func(c *Config) { c.APIKey = limitKey }), slog.New(slog.NewTextHandler(&logs, nil)))
	base := serveOnLoopback(t, srv, nil)

	resp, err := http.Get(base + "/ui/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("X-Request-ID")
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("GET /ui/login: %d, X-Request-ID %q", resp.StatusCode, id)
	}
	// The log line is written before the answer is sent.
	if n := strings.Count(logs.String(), "request_id="+id); n != 1 {
		t.Errorf("%d log lines with the request's id, want 1:\n%s", n, logs.String())
	}
	if line := logs.String(); !strings.Contains(line, "msg=request") || !strings.Contains(line, "path=/ui/login") || !strings.Contains(line, "status=200") {
		t.Errorf("log line: %s", line)
	}

	const token = "SeCrEtToKeN0123456789abcdefghijklmnopqrstu"
	if resp, err = http.Get(base + "/ui/login/" + token); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if strings.Contains(logs.String(), token) || !strings.Contains(logs.String(), "/ui/login/…") {
		t.Errorf("a member link in the log:\n%s", logs.String())
	}

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var counted float64
	for _, f := range families {
		if f.GetName() != "ada_http_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "route" && l.GetValue() == uiRoute {
					counted += m.GetCounter().GetValue()
				}
			}
		}
	}
	if counted != 2 {
		t.Errorf("%v page requests counted, want 2", counted)
	}
}

// blockingPage stands in for a page request that takes long (a slow
// store): it reports that it started, then waits for its context or for
// release, and reports why it ended.
type blockingPage struct {
	started chan struct{}
	release chan struct{}
	ended   chan error
}

func newBlockingPage() *blockingPage {
	return &blockingPage{started: make(chan struct{}, 1), release: make(chan struct{}), ended: make(chan error, 1)}
}

func (p *blockingPage) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.started <- struct{}{}
	select {
	case <-r.Context().Done():
		p.ended <- context.Cause(r.Context())
	case <-p.release:
		p.ended <- nil
		_, _ = io.WriteString(w, "done")
	}
}

func waitFor[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10 s", what)
		panic("unreachable")
	}
}

// TestPageRequestIsBounded: a page request ends at REQUEST_TIMEOUT_SECONDS
// (504) and as soon as its client leaves.
func TestPageRequestIsBounded(t *testing.T) {
	page := newBlockingPage()
	srv := New(nil, Deps{UI: page}, testConfig(t, func(c *Config) { c.RequestTimeout = time.Second }), slog.New(slog.DiscardHandler))
	base := serveOnLoopback(t, srv, nil)

	// The client's own bound only keeps a failing test from hanging.
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(base + "/ui/memories")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Errorf("a page request past the timeout: %d, want 504", resp.StatusCode)
	}
	waitFor(t, page.started, "page request")
	if err := waitFor(t, page.ended, "end of the page request"); !errors.Is(err, errTimedOut) {
		t.Errorf("the page request ended with %v, want the timeout", err)
	}

	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(conn, "GET /ui/memories HTTP/1.1\r\nHost: localhost\r\n\r\n")
	waitFor(t, page.started, "page request")
	conn.Close()
	if err := waitFor(t, page.ended, "end of the page request"); !errors.Is(err, errClientGone) {
		t.Errorf("the page request ended with %v, want the client's leaving", err)
	}
}

// TestShutdownWaitsForAPageRequest: a shutdown lets a running page
// request finish while it answers new ones 503.
func TestShutdownWaitsForAPageRequest(t *testing.T) {
	page := newBlockingPage()
	srv := New(nil, Deps{UI: page}, testConfig(t, nil), slog.New(slog.DiscardHandler))
	base := serveOnLoopback(t, srv, nil)

	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "GET /ui/memories HTTP/1.1\r\nHost: localhost\r\n\r\n")
	waitFor(t, page.started, "page request")

	stopped := make(chan error, 1)
	go func() { stopped <- srv.Shutdown(context.Background()) }()
	// Draining has begun once a new request is refused (asked of another
	// route: the blocking page would hold a new page request).
	for {
		resp, err := http.Get(base + "/openapi.json")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			break
		}
	}
	select {
	case err := <-stopped:
		t.Fatalf("shutdown returned (%v) while a page request was running", err)
	default:
	}
	close(page.release)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(body) != "done" {
		t.Errorf("the running page request: %d %q, want 200 done", resp.StatusCode, body)
	}
	if err := waitFor(t, stopped, "shutdown"); err != nil {
		t.Error(err)
	}
}
