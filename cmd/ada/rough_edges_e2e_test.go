package main

import (
	"bufio"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core/llm/llmtest"
)

// isoMicro is the API's one time format: ISO 8601, microseconds, offset.
var isoMicro = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$`)

// TestOneTimestampFormat: memories show their times as chat replies do.
func TestOneTimestampFormat(t *testing.T) {
	llm := llmtest.New(t)
	p := startAda(t, "serve", testEnv(t, map[string]string{
		"LLM_BACKEND": "ollama", "LLM_BASE_URL": llm.URL(), "LLM_MODEL": llmtest.ModelName, "RAG_AUTO_MEMORY": "false",
	}))
	llm.Script(llmtest.Reply{Tokens: []string{"hello"}})
	var chat map[string]any
	p.call("POST", "/v1/chat", map[string]any{"prompt": "hi"}, &chat)
	type meta struct {
		Timestamp string  `json:"timestamp"`
		ExpiresAt *string `json:"expires_at"`
	}
	var created struct{ Meta meta }
	expires := time.Now().Add(48 * time.Hour).Format(time.RFC3339)
	if code := p.call("POST", "/v1/memory", map[string]any{"text": "Sam rides a red bike", "expires_at": expires}, &created); code != 201 {
		t.Fatalf("create memory: %d", code)
	}
	var list struct{ Items []struct{ Meta meta } }
	p.call("GET", "/v1/memory", nil, &list)
	if len(list.Items) != 1 {
		t.Fatalf("listed %d memories", len(list.Items))
	}
	times := map[string]string{
		"chat assistant_timestamp": toString(chat["assistant_timestamp"]),
		"created meta.timestamp":   created.Meta.Timestamp,
		"listed meta.timestamp":    list.Items[0].Meta.Timestamp,
		"listed meta.expires_at":   toString(list.Items[0].Meta.ExpiresAt),
	}
	for what, ts := range times {
		if !isoMicro.MatchString(ts) {
			t.Errorf("%s = %q, want ISO 8601 with microseconds and +00:00", what, ts)
		}
	}
}

func toString(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case *string:
		if s != nil {
			return *s
		}
	}
	return ""
}

// TestFailureLogLevels: one rule on both chat routes (client errors WARN,
// upstream and internal ERROR), and the client is not told the LLM's
// internal address, which stays in the log.
func TestFailureLogLevels(t *testing.T) {
	down := llmtest.ClosedURL(t)
	p := startAda(t, "serve", testEnv(t, map[string]string{"LLM_BACKEND": "ollama", "LLM_BASE_URL": down, "LLM_MODEL": "m"}))

	var failed struct{ Detail string }
	if code := p.call("POST", "/v1/chat", map[string]any{"prompt": "hi"}, &failed); code != 500 {
		t.Errorf("/v1/chat with the LLM down: %d", code)
	}
	resp, err := http.Post(p.URL+"/v1/chat/stream", "application/json", strings.NewReader(`{"prompt":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			events = append(events, sc.Text())
		}
	}
	resp.Body.Close()
	for _, detail := range append(events, failed.Detail) {
		if !strings.Contains(detail, "ollama") || !strings.Contains(detail, "connection refused") || strings.Contains(detail, down) {
			t.Errorf("client sees %q: want the backend and the failure, not the address %s", detail, down)
		}
	}
	for _, path := range []string{"path=/v1/chat ", "path=/v1/chat/stream "} {
		lines := logLines(p, "msg=request", path, "status=")
		if len(lines) != 1 || !strings.Contains(lines[0], "level=ERROR") || !strings.Contains(lines[0], down) {
			t.Errorf("%s: want one ERROR line naming the LLM address, got %q", path, lines)
		}
		// The line tells the real outcome, also for a stream whose 200 was
		// already sent: the status its failure has on /v1/chat.
		if len(lines) == 1 && !strings.Contains(lines[0], "status=500") {
			t.Errorf("%s: the failed request is not logged as a 500: %q", path, lines[0])
		}
	}
	// A client error is a warning on either route.
	for _, path := range []string{"/v1/chat", "/v1/chat/stream"} {
		if code := p.call("POST", path, map[string]any{"prompt": "hi", "turns_k": -1}, nil); code != 400 {
			t.Errorf("%s with turns_k -1: %d", path, code)
		}
	}
	if n := len(logLines(p, "level=WARN", "msg=request", "status=400")); n != 2 {
		t.Errorf("want 2 WARN lines for the 400s, got %d:\n%s", n, p.logs.String())
	}
}

// TestListenAddrWarning: no API key is always warned about once at start:
// on every interface naming both settings, on loopback naming API_KEY and
// what still reaches Ada (programs and pages of this machine using
// localhost); with a key there is no warning.
func TestListenAddrWarning(t *testing.T) {
	for _, c := range []struct {
		env      map[string]string
		everyIf  int // warnings naming LISTEN_ADDR and API_KEY
		loopback int // warnings naming API_KEY and localhost
	}{
		{map[string]string{"LISTEN_ADDR": ":0"}, 1, 0},
		{map[string]string{"LISTEN_ADDR": "0.0.0.0:0"}, 1, 0},
		{map[string]string{"LISTEN_ADDR": ":0", "API_KEY": "a-key-of-16-chars-or-more"}, 0, 0},
		{map[string]string{"LISTEN_ADDR": "127.0.0.1:0", "API_KEY": "a-key-of-16-chars-or-more"}, 0, 0},
		{map[string]string{"LISTEN_ADDR": "127.0.0.1:0"}, 0, 1},
	} {
		p := startAda(t, "serve", testEnv(t, c.env))
		if n := len(logLines(p, "level=WARN", "LISTEN_ADDR", "API_KEY")); n != c.everyIf {
			t.Errorf("%v: %d warnings naming LISTEN_ADDR and API_KEY, want %d:\n%s", c.env, n, c.everyIf, p.logs.String())
		}
		if n := len(logLines(p, "level=WARN", "without API_KEY", "localhost")); n != c.loopback {
			t.Errorf("%v: %d warnings about loopback without API_KEY, want %d:\n%s", c.env, n, c.loopback, p.logs.String())
		}
		p.stop()
	}
}
