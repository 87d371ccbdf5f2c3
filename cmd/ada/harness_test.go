package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// adaProc is the real program, started through run() on a free port.
type adaProc struct {
	t      testing.TB
	URL    string
	cancel context.CancelFunc
	done   chan error
	logs   *syncBuffer
	svc    *core.Service
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testEnv returns settings for a test instance: its own data directory, a
// free port, no .env file from the developer's checkout.
func testEnv(t testing.TB, extra map[string]string) map[string]string {
	env := map[string]string{
		"DATA_DIR":     t.TempDir(),
		"LISTEN_ADDR":  "127.0.0.1:0",
		"ADA_ENV_FILE": "/dev/null",
		"LOG_LEVEL":    "DEBUG",
		// A test that ends with a chat still running stops in 2 s, not
		// the default 30 s of grace.
		"SHUTDOWN_GRACE_SECONDS": "2",
	}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

// bridgeEnv is testEnv for `ada up` with the bridge logged in as acct on
// hs and the scripted model llm, and extra on top.
func bridgeEnv(t testing.TB, hs *bottest.Homeserver, acct bottest.Account, llm *llmtest.Server, extra map[string]string) map[string]string {
	return testEnv(t, maps(map[string]string{
		"LLM_BACKEND": "ollama", "LLM_BASE_URL": llm.URL(), "LLM_MODEL": llmtest.ModelName,
		"MATRIX_HOMESERVER": hs.URL(), "MATRIX_USER_ID": acct.UserID.String(), "MATRIX_PASSWORD": acct.Password,
	}, extra))
}

// mapEnv is the environment of a test instance: the variables in env are
// set, all others unset.
func mapEnv(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := env[k]
		return v, ok
	}
}

// startAda runs `ada <cmd>` in-process and waits until the API listens.
func startAda(t testing.TB, cmd string, env map[string]string) *adaProc {
	t.Helper()
	return startAdaDeps(t, cmd, env, nil)
}

// startAdaDeps is startAda with runEnv.deps: deps may replace core's
// dependencies before core is built.
func startAdaDeps(t testing.TB, cmd string, env map[string]string, deps func(*core.Deps)) *adaProc {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	p := &adaProc{t: t, cancel: cancel, done: make(chan error, 1), logs: &syncBuffer{}}
	ready := make(chan string, 1)
	go func() {
		p.done <- run(ctx, runEnv{
			args:      []string{cmd},
			lookupEnv: mapEnv(env),
			stdout:    io.Discard, stderr: p.logs,
			ready: func(addr string) { ready <- addr },
			deps:  deps,
			built: func(svc *core.Service) { p.svc = svc },
		})
	}()
	select {
	case addr := <-ready:
		p.URL = "http://" + addr
	case err := <-p.done:
		cancel()
		t.Fatalf("ada %s exited early: %v\nlogs:\n%s", cmd, err, p.logs.String())
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatalf("ada %s did not start\nlogs:\n%s", cmd, p.logs.String())
	}
	t.Cleanup(p.stop)
	return p
}

// settle waits until the background work started so far (memory
// extractions, summaries) has run: what has not happened by then will not
// happen, which a sleep could only make likely.
func (p *adaProc) settle() { p.svc.Wait() }

// stop shuts the program down as SIGTERM would and waits for it.
func (p *adaProc) stop() {
	if p.cancel == nil {
		return
	}
	p.cancel()
	p.cancel = nil
	select {
	case err := <-p.done:
		if err != nil {
			p.t.Errorf("ada exited with %v", err)
		}
	case <-time.After(20 * time.Second):
		p.t.Errorf("ada did not stop within 20 s")
	}
	if p.t.Failed() {
		p.t.Logf("ada logs:\n%s", p.logs.String())
	}
}

// call sends a request and decodes a JSON answer into out (if non-nil).
func (p *adaProc) call(method, path string, body any, out any) int {
	p.t.Helper()
	return p.callWithKey("", method, path, body, out)
}

// callWithKey is call with the API key as a bearer token.
func (p *adaProc) callWithKey(key, method, path string, body any, out any) int {
	p.t.Helper()
	status, data := p.send(key, method, path, body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			p.t.Fatalf("%s %s: status %d, body %q is not the expected JSON: %v", method, path, status, data, err)
		}
	}
	return status
}

// send sends a request, with the API key as a bearer token unless key is
// empty, and returns the status and the body as it came.
func (p *adaProc) send(key, method, path string, body any) (int, []byte) {
	p.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, _ := json.Marshal(b)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, p.URL+path, rd)
	if err != nil {
		p.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

func TestMain(m *testing.M) {
	os.Exit(m.Run())
}

func toJSON(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}
