package mcptools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/specialists/mcptools/mcptest"
)

func startManager(t *testing.T, opts Options, servers ...Server) *Manager {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m := Start(ctx, servers, opts)
	t.Cleanup(m.Close)
	return m
}

func toolNamed(t *testing.T, m *Manager, name string) core.Specialist {
	t.Helper()
	var names []string
	for _, sp := range m.Specialists() {
		if sp.Info().Name == name {
			return sp
		}
		names = append(names, sp.Info().Name)
	}
	t.Fatalf("no tool %s among %v", name, names)
	return nil
}

func call(t *testing.T, sp core.Specialist, args string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return sp.Run(ctx, core.SpecialistCall{Args: json.RawMessage(args)})
}

// Over stdio: the tools are specialists with their schema; text, image
// and structured results come back as text; an error result and a call
// that outlives MCP_TOOL_TIMEOUT_SECONDS are errors the model is shown;
// the server sees only PATH, HOME and its entry's env.
func TestStdioServerToolsAsSpecialists(t *testing.T) {
	node, script := mcptest.Everything(t)
	t.Setenv("ADA_TEST_SECRET", "ada-own-secret")
	m := startManager(t, Options{Timeout: 2 * time.Second},
		Server{Name: "everything", Command: node, Args: []string{script, "stdio"}, Env: map[string]string{"WIKI_TOKEN": "entry-secret"}})

	echo := toolNamed(t, m, "everything.echo")
	info := echo.Info()
	if !strings.Contains(info.Description, "Echoes back") || !strings.Contains(string(info.InputSchema), `"message"`) ||
		!info.Enabled || len(info.Tags) != 2 || info.Tags[1] != "mcp-server:everything" {
		t.Fatalf("echo info %+v", info)
	}
	if out, err := call(t, echo, `{"message": "hello there"}`); err != nil || out != "Echo: hello there" {
		t.Fatalf("echo: %q, %v", out, err)
	}

	env, err := call(t, toolNamed(t, m, "everything.get-env"), `{}`)
	if err != nil {
		t.Fatal(err)
	}
	var vars map[string]string
	if err := json.Unmarshal([]byte(env), &vars); err != nil {
		t.Fatalf("get-env: %v: %s", err, env)
	}
	if vars["WIKI_TOKEN"] != "entry-secret" || vars["PATH"] != os.Getenv("PATH") || vars["HOME"] != os.Getenv("HOME") {
		t.Errorf("the server lacks its environment: %v", vars)
	}
	if _, ok := vars["ADA_TEST_SECRET"]; ok || strings.Contains(env, "ada-own-secret") {
		t.Errorf("the server saw Ada's own environment: %v", vars)
	}

	if out, err := call(t, toolNamed(t, m, "everything.get-tiny-image"), `{}`); err != nil || !strings.Contains(out, "[an image (image/png") {
		t.Errorf("image: %q, %v", out, err)
	}
	if out, err := call(t, toolNamed(t, m, "everything.get-structured-content"), `{"location": "Chicago"}`); err != nil || !strings.Contains(out, "temperature") {
		t.Errorf("structured: %q, %v", out, err)
	}

	_, err = call(t, toolNamed(t, m, "everything.get-resource-reference"), `{"resourceId": 0}`)
	if err == nil || core.KindOf(err) != core.KindUpstream || !strings.Contains(core.SafeMessage(err), "Invalid resourceId") {
		t.Errorf("error result: %v", err)
	}

	start := time.Now()
	_, err = call(t, toolNamed(t, m, "everything.trigger-long-running-operation"), `{"duration": 20, "steps": 20}`)
	if err == nil || !strings.Contains(core.SafeMessage(err), "did not answer within 2s (MCP_TOOL_TIMEOUT_SECONDS)") || time.Since(start) > 10*time.Second {
		t.Errorf("timeout: %v after %v", err, time.Since(start))
	}
	// The session survives the abandoned call.
	if out, err := call(t, echo, `{"message": "still here"}`); err != nil || out != "Echo: still here" {
		t.Fatalf("echo after the timeout: %q, %v", out, err)
	}
	if st := m.Status(); len(st) != 1 || !st[0].Up || st[0].Transport != "stdio" || st[0].Tools < 5 {
		t.Errorf("status %+v", st)
	}
}

// A server that exits is down (its tools fail with a clear error, status
// says so) and is started again.
func TestStdioServerIsRestarted(t *testing.T) {
	node, script := mcptest.Everything(t)
	pidFile := filepath.Join(t.TempDir(), "pid")
	// sh writes its pid, then becomes the server.
	m := startManager(t, Options{},
		Server{Name: "ev", Command: "sh", Args: []string{"-c", `echo $$ > "$PID_FILE"; exec "$NODE" "$SCRIPT" stdio`},
			Env: map[string]string{"PID_FILE": pidFile, "NODE": node, "SCRIPT": script}})
	echo := toolNamed(t, m, "ev.echo")
	if _, err := call(t, echo, `{"message": "a"}`); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	os.Remove(pidFile)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the server to be seen down", func() bool { return !m.Status()[0].Up })
	if _, err := call(t, echo, `{"message": "b"}`); err != nil && core.KindOf(err) != core.KindUnavailable {
		t.Errorf("a call while down: %v", err)
	}
	waitFor(t, "the server to restart", func() bool { st := m.Status()[0]; return st.Up && st.Restarts == 1 })
	if out, err := call(t, echo, `{"message": "c"}`); err != nil || out != "Echo: c" {
		t.Fatalf("echo after the restart: %q, %v", out, err)
	}
}

// Over streamable HTTP, with the entry's headers.
func TestHTTPServerToolsAsSpecialists(t *testing.T) {
	sock := mcptest.EverythingHTTP(t)
	var sawHeader atomic.Bool
	hc := mcptest.UnixClient(sock)
	hc.Transport = recordHeader{base: hc.Transport, seen: &sawHeader}
	m := startManager(t, Options{HTTPClient: hc},
		Server{Name: "web", URL: "http://everything.local/mcp", Headers: map[string]string{"X-Api-Key": "h-secret"}})
	out, err := call(t, toolNamed(t, m, "web.echo"), `{"message": "over http"}`)
	if err != nil || out != "Echo: over http" {
		t.Fatalf("echo: %q, %v", out, err)
	}
	if !sawHeader.Load() {
		t.Error("the entry's header was not sent")
	}
	if st := m.Status(); len(st) != 1 || !st[0].Up || st[0].Transport != "http" {
		t.Errorf("status %+v", st)
	}
}

type recordHeader struct {
	base http.RoundTripper
	seen *atomic.Bool
}

func (r recordHeader) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("X-Api-Key") == "h-secret" {
		r.seen.Store(true)
	}
	return r.base.RoundTrip(req)
}

// A server that does not start leaves Ada running without its tools, and
// its error never shows a key in the address or a header.
func TestServerThatDoesNotStart(t *testing.T) {
	var logs strings.Builder
	m := startManager(t, Options{StartTimeout: 10 * time.Second, Logger: slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))},
		Server{Name: "broken", Command: "/nonexistent/mcp-server"},
		Server{Name: "gone", URL: "http://127.0.0.1:1/mcp?key=q-secret", Headers: map[string]string{"Authorization": "h-secret"}})
	if len(m.Specialists()) != 0 {
		t.Fatalf("tools %v", m.Specialists())
	}
	st := m.Status()
	if len(st) != 2 || st[0].Up || st[0].Error == "" || st[1].Up || !strings.Contains(st[1].Error, "127.0.0.1:1/mcp") {
		t.Fatalf("status %+v", st)
	}
	m.Close()
	for _, shown := range []string{fmt.Sprint(st), logs.String()} {
		if strings.Contains(shown, "q-secret") || strings.Contains(shown, "h-secret") {
			t.Errorf("a secret is shown: %s", shown)
		}
	}
}

// syncWriter lets the restart loops log while the test reads.
type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// waitFor polls cond (a state change of another process) until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A url server that goes away and comes back: the failed call ends the
// session, the manager connects again, and the tool works.
func TestHTTPServerReconnects(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "ev.sock")
	stop := mcptest.EverythingHTTPAt(t, sock)
	m := startManager(t, Options{HTTPClient: mcptest.UnixClient(sock)}, Server{Name: "web", URL: "http://everything.local/mcp"})
	echo := toolNamed(t, m, "web.echo")
	if _, err := call(t, echo, `{"message": "a"}`); err != nil {
		t.Fatal(err)
	}
	stop()
	if _, err := call(t, echo, `{"message": "b"}`); err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("a call to a server that is gone: %v", err)
	}
	mcptest.EverythingHTTPAt(t, sock)
	waitFor(t, "the reconnection", func() bool { st := m.Status()[0]; return st.Up && st.Restarts >= 1 })
	if out, err := call(t, echo, `{"message": "c"}`); err != nil || out != "Echo: c" {
		t.Fatalf("echo after the reconnection: %q, %v", out, err)
	}
}
