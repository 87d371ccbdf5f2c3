package apiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
)

// fakeService stands in for the core behind the handlers: each test sets
// what it needs. Methods it does not set are the nil interface's, which
// panic — and a panic must still come out as a clean 500.
type fakeService struct {
	Service
	createMemory func(core.MemoryInput) (core.Memory, error)
	chat         func(emit func(core.Event) error) (core.ChatResult, error)
}

func (f *fakeService) CreateMemory(_ context.Context, in core.MemoryInput) (core.Memory, error) {
	return f.createMemory(in)
}

func (f *fakeService) Chat(_ context.Context, _ core.ChatRequest, emit func(core.Event) error) (core.ChatResult, error) {
	return f.chat(emit)
}

func (f *fakeService) Options() core.Options { return core.DefaultOptions() }

// serveFake runs the real HTTP server over svc on loopback.
func serveFake(t *testing.T, svc Service) string {
	t.Helper()
	srv := New(svc, Deps{}, testConfig(t, func(c *Config) { c.RequestTimeout, c.KeepAlive = 10*time.Second, time.Minute }),
		slog.New(slog.DiscardHandler))
	return serveOnLoopback(t, srv, nil)
}

// testConfig is what cmd/ada gives the server when no setting is changed
// (config's defaults), then changed by set (if not nil).
func testConfig(tb testing.TB, set func(*Config)) Config {
	tb.Helper()
	d, err := config.Load(func(string) string { return "" })
	if err != nil {
		tb.Fatal(err)
	}
	c := Config{RequestTimeout: d.RequestTimeout, KeepAlive: d.SSEKeepAlive, MaxBodyBytes: d.MaxBodyBytes,
		UploadMaxBytes: d.OCRMaxBytes, OCRConcurrency: d.OCRConcurrency, PublicConfig: d.Public()}
	if set != nil {
		set(&c)
	}
	return c
}

// serveOnLoopback serves srv on a free loopback port until the test ends,
// then shuts it down and runs after (closing what the server ran on).
func serveOnLoopback(tb testing.TB, srv *Server, after func()) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		if after != nil {
			after()
		}
	})
	return "http://" + ln.Addr().String()
}

// Every kind of core error reaches an HTTP client as its status and a
// {"detail"} that says what went wrong — except an internal one, whose
// cause (which may name paths or SQL) stays in the server.
func TestHandlersMapCoreErrorsToStatusAndDetail(t *testing.T) {
	svc := &fakeService{}
	url := serveFake(t, svc)
	tests := []struct {
		name   string
		err    error
		status int
		detail string
	}{
		{"invalid", core.Errorf(core.KindInvalid, "text: is required"), 400, "text: is required"},
		{"not found", core.Errorf(core.KindNotFound, "memory not found"), 404, "memory not found"},
		{"unavailable", core.Errorf(core.KindUnavailable, "the database cannot be written"), 503, "the database cannot be written"},
		{"upstream", core.Errorf(core.KindUpstream, "the embedder is down"), 500, "the embedder is down"},
		{"too large", core.Errorf(core.KindTooLarge, "text too long"), 413, "text too long"},
		{"internal hides its cause", core.Wrap(core.KindInternal, errors.New("open /secret/path: denied"), "write failed"), 500, "internal error"},
		{"a plain error is internal", errors.New("sql: no rows in /secret/path"), 500, "internal error"},
		{"a panic is internal", nil, 500, "internal error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc.createMemory = func(core.MemoryInput) (core.Memory, error) {
				if tc.err == nil {
					panic("boom in /secret/path")
				}
				return core.Memory{}, tc.err
			}
			resp, err := http.Post(url+"/v1/memory", "application/json", strings.NewReader(`{"text":"x"}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var d struct{ Detail string }
			if err := json.NewDecoder(resp.Body).Decode(&d); err != nil {
				t.Fatalf("body is not {\"detail\"}: %v", err)
			}
			if resp.StatusCode != tc.status || d.Detail != tc.detail {
				t.Fatalf("got %d %q, want %d %q", resp.StatusCode, d.Detail, tc.status, tc.detail)
			}
			if strings.Contains(d.Detail, "/secret/path") {
				t.Fatalf("the detail leaks the cause: %q", d.Detail)
			}
		})
	}
}

// A failure after the stream has started cannot change the 200: it ends the
// stream with an error event that carries the kind, which is how the bridge
// over HTTP tells a model failure from a cancelled one.
func TestStreamEndsWithTheErrorKind(t *testing.T) {
	svc := &fakeService{chat: func(emit func(core.Event) error) (core.ChatResult, error) {
		if err := emit(core.Event{Type: core.EventToken, Content: "Hel"}); err != nil {
			return core.ChatResult{}, err
		}
		return core.ChatResult{}, core.Errorf(core.KindUnavailable, "the model is loading")
	}}
	url := serveFake(t, svc)
	resp, err := http.Post(url+"/v1/chat/stream", "application/json", strings.NewReader(`{"prompt":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var events []core.Event
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		payload, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		ev, err := wire.DecodeEvent([]byte(payload))
		if err != nil {
			t.Fatalf("undecodable event %q: %v", payload, err)
		}
		events = append(events, ev)
	}
	if len(events) != 2 || events[0].Content != "Hel" || events[1].Type != core.EventError ||
		events[1].Kind != core.KindUnavailable || events[1].Error != "the model is loading" {
		t.Fatalf("events: %+v; want the token, then an error of kind unavailable", events)
	}
}

// A chat that panics is a 500, and the connection it came on still serves
// the next request: the disconnect watcher is stopped on every way out of
// the chat (one left reading the connection takes the next request's first
// byte, and that request hangs).
func TestPanickingChatLeavesTheConnectionUsable(t *testing.T) {
	svc := &fakeService{chat: func(func(core.Event) error) (core.ChatResult, error) { panic("boom") }}
	url := serveFake(t, svc)
	client := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{MaxConnsPerHost: 1}}
	for i := range 20 {
		resp, err := client.Post(url+"/v1/chat", "application/json", strings.NewReader(`{"prompt":"hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 500 {
			t.Fatalf("chat %d: status %d, want 500", i, resp.StatusCode)
		}
		resp, err = client.Get(url + "/v1/nothing")
		if err != nil {
			t.Fatalf("the request after panic %d: %v", i, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Fatalf("the request after panic %d: status %d, want 404", i, resp.StatusCode)
		}
	}
}
