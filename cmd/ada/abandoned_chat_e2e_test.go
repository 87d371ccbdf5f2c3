package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// A client that hangs up on POST /v1/chat (the JSON route) must stop the LLM
// call and leave nothing behind for that turn (DECISIONS.md "Chat"), and be
// logged as a client that left, not as a server error.
func TestAbandonedJSONChatCancelsTheLLMAndWritesNothing(t *testing.T) {
	ada, llm, env := startChatAda(t, "ollama", nil)
	// The model sends a token, then never finishes, as a slow model would.
	asked := make(chan struct{})
	var first sync.Once
	llm.Handle(func(r llmtest.Request) (reply llmtest.Reply, handled bool) {
		if r.Format != nil {
			return llmtest.Reply{}, false // background extraction, if any
		}
		first.Do(func() {
			close(asked)
			reply, handled = llmtest.Reply{Tokens: []string{"partial"}, Hang: true}, true
		})
		return reply, handled
	})

	ctx, hangUp := context.WithCancel(context.Background())
	defer hangUp()
	body, _ := json.Marshal(map[string]any{"prompt": "never finish", "save_memory": true, "memory_text": "The user likes tea"})
	req, _ := http.NewRequestWithContext(ctx, "POST", ada.URL+"/v1/chat", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	answered := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		answered <- err
	}()

	select {
	case <-asked:
	case <-time.After(30 * time.Second):
		t.Fatal("the chat never reached the LLM")
	}
	hungUp := time.Now()
	hangUp() // closes the connection
	if err := <-answered; err == nil {
		t.Fatal("the hung-up request got an answer")
	}
	// Well under REQUEST_TIMEOUT_SECONDS (300 s): the LLM call must end
	// because the client left, not because the request timed out.
	wctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel2()
	if err := llm.WaitCancelled(wctx2, 1); err != nil {
		t.Fatalf("the LLM request was not cancelled after the client left: %v", err)
	}
	t.Logf("LLM call cancelled %v after the client hung up", time.Since(hungUp).Round(time.Millisecond))

	line := waitLogLine(t, ada, "msg=request", "path=/v1/chat ")
	if !strings.Contains(line, "level=WARN") || !strings.Contains(line, "status=499") || !strings.Contains(line, "client went away") {
		t.Errorf("the abandoned chat's log line should be a WARN with status 499 (client closed), got %s", line)
	}
	if docs := documentsIn(t, env, core.Filter{Type: core.DocTurn}); len(docs) != 0 {
		t.Fatalf("an abandoned chat wrote %d turns", len(docs))
	}
	if docs := documentsIn(t, env, core.Filter{Type: core.DocMemory}); len(docs) != 0 {
		t.Fatalf("an abandoned chat wrote %d memories", len(docs))
	}

	// The server is unharmed: the next chat, on a kept-alive connection,
	// is answered and stored.
	llm.Script(llmtest.Reply{Tokens: []string{"hello"}}, llmtest.Reply{Tokens: []string{"again"}})
	for _, want := range []string{"hello", "again"} {
		var r chatResponse
		if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "hi"}, &r); st != 200 || r.Response != want {
			t.Fatalf("next chat: %d %+v", st, r)
		}
	}
	if docs := documentsIn(t, env, core.Filter{Type: core.DocTurn}); len(docs) != 4 {
		t.Fatalf("two answered chats wrote %d turns, want 4", len(docs))
	}
}

// waitLogLine waits for the one log line holding every part.
func waitLogLine(t *testing.T, p *adaProc, parts ...string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if lines := logLines(p, parts...); len(lines) > 0 {
			return lines[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line with %q\nlogs:\n%s", parts, p.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A stream whose client leaves while the model is silent is logged as a
// client that closed the request (WARN, 499), not as a server error.
func TestAbandonedStreamIsLoggedAsClientClosed(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", nil)
	llm.Script(llmtest.Reply{Tokens: []string{"partial"}, Hang: true})
	s := ada.openStream(map[string]any{"prompt": "never finish"})
	if ev, _ := s.next(); ev.Content != "partial" {
		t.Fatalf("first event %+v", ev)
	}
	s.cancel()
	line := waitLogLine(t, ada, "msg=request", "path=/v1/chat/stream")
	if !strings.Contains(line, "level=WARN") || !strings.Contains(line, "status=499") || !strings.Contains(line, "client went away") {
		t.Errorf("the abandoned stream's log line should be a WARN with status 499 (client closed), got %s", line)
	}
}
