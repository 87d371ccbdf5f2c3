package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestShutdownDrainsRunningStreams: at SIGTERM a stream being answered
// finishes within the grace period, whole, and is stored; a request that
// arrives meanwhile gets 503 with Retry-After.
func TestShutdownDrainsRunningStreams(t *testing.T) {
	ada, llm, env := startChatAda(t, "ollama", map[string]string{"SHUTDOWN_GRACE_SECONDS": "30"})
	hold := make(chan struct{})
	llm.Default(llmtest.Reply{Tokens: []string{"All", " done", "."}, Hold: hold, HoldAfter: 1})

	resp, err := http.Post(ada.URL+"/v1/chat/stream", "application/json", strings.NewReader(`{"prompt": "finish this, please"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var events []string
	next := func() string {
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events = append(events, line)
				return line
			}
		}
		return ""
	}
	if first := next(); !strings.Contains(first, `"type":"token"`) {
		t.Fatalf("first event %q", first)
	}

	stopped := make(chan struct{})
	go func() { ada.stop(); close(stopped) }()
	waitFor(t, "the server to drain", func() bool {
		r, err := http.Get(ada.URL + "/v1/healthz")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == http.StatusServiceUnavailable
	})
	r, err := http.Post(ada.URL+"/v1/chat", "application/json", strings.NewReader(`{"prompt": "one more?"}`))
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 503 || r.Header.Get("Retry-After") == "" {
		t.Errorf("a new chat while draining: %d, Retry-After %q; want 503 with Retry-After", r.StatusCode, r.Header.Get("Retry-After"))
	}

	close(hold) // the model goes on
	for ev := next(); ev != ""; ev = next() {
	}
	last := events[len(events)-1]
	if !strings.Contains(last, `"type":"done"`) || strings.Contains(strings.Join(events, "\n"), `"type":"error"`) {
		t.Fatalf("the stream did not finish whole:\n%s", strings.Join(events, "\n"))
	}
	select {
	case <-stopped:
	case <-time.After(20 * time.Second):
		t.Fatal("ada did not exit after the stream finished")
	}

	// The answer was stored: a restart on the same data finds both turns.
	var done struct {
		ConversationID string `json:"conversation_id"`
	}
	if err := json.Unmarshal([]byte(last), &done); err != nil || done.ConversationID == "" {
		t.Fatalf("done event %q: %v", last, err)
	}
	conv := done.ConversationID
	again := startAda(t, "serve", env)
	var turns struct {
		Turns []any `json:"turns"`
	}
	if st := again.call("GET", "/v1/conversations/"+conv, nil, &turns); st != 200 || len(turns.Turns) != 2 {
		t.Errorf("conversation after the drain: %d, %d turns; want both turns", st, len(turns.Turns))
	}
}
