package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/apiserver/client"
	"github.com/ada-chat/ada/core"
)

// sseServer answers /v1/chat/stream with the given raw body and records the
// request it got.
func sseServer(t *testing.T, status int, body string) (*client.Client, *http.Request, *[]byte) {
	t.Helper()
	var got http.Request
	var payload []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = *r.Clone(context.Background())
		payload, _ = io.ReadAll(r.Body)
		if status != http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
		} else {
			w.Header().Set("Content-Type", "text/event-stream")
		}
		_, _ = io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return client.New(srv.URL+"/", "secret-key", nil), &got, &payload
}

func collect(t *testing.T, c *client.Client, req core.ChatRequest) ([]core.Event, core.ChatResult, error) {
	t.Helper()
	var evs []core.Event
	res, err := c.Chat(context.Background(), req, func(e core.Event) error { evs = append(evs, e); return nil })
	return evs, res, err
}

func TestChatStream(t *testing.T) {
	body := ": keep-alive\n\n" +
		"data: {\"type\":\"thinking\",\"content\":\"hmm\"}\n\n" +
		"data: {\"type\":\"token\",\"content\":\"Hel\"}\r\n\r\n" +
		"data: {\"type\":\"specialist_result\",\"specialist\":\"web_search\",\"ok\":true,\"content\":\"r\"}\n\n" +
		"data: {\"type\":\"token\",\n" + // one event over two data lines
		"data: \"content\":\"lo\"}\n\n" +
		"data: {\"type\":\"done\",\"response\":\"Hello\",\"thinking\":null,\"conversation_id\":\"conv-1\",\"request_id\":\"r1\"," +
		"\"user_timestamp\":\"\",\"assistant_timestamp\":\"\",\"used_context\":{\"persona\":{\"included\":false,\"version\":null,\"timestamp\":null},\"faqs\":[],\"turns\":[],\"memories\":[],\"summaries\":[],\"entity\":null}}\n\n"
	c, got, payload := sseServer(t, 200, body)
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	recallK, autoMemory := 0, false // zero values must still be sent
	evs, res, err := collect(t, c, core.ChatRequest{
		Prompt: "hi", ConversationID: "conv-1", Store: false, RoomID: "!r:x", UserTimestamp: ts,
		RecallK: &recallK, AutoMemory: &autoMemory,
		ContextMessages: []core.ContextMessage{{Sender: "Bob", Text: "earlier", Timestamp: ts}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Response != "Hello" || res.ConversationID != "conv-1" {
		t.Errorf("result %+v", res)
	}
	var types []string
	for _, e := range evs {
		types = append(types, string(e.Type))
	}
	if strings.Join(types, ",") != "thinking,token,specialist_result,token,done" {
		t.Errorf("events %v", types)
	}
	if got.URL.Path != "/v1/chat/stream" || got.Method != http.MethodPost || got.Header.Get("Authorization") != "Bearer secret-key" {
		t.Errorf("request %s %s auth %q", got.Method, got.URL.Path, got.Header.Get("Authorization"))
	}
	var sent map[string]any
	if err := json.Unmarshal(*payload, &sent); err != nil {
		t.Fatal(err)
	}
	if sent["prompt"] != "hi" || sent["store"] != false || sent["room_id"] != "!r:x" || sent["user_timestamp"] != "2026-01-02T03:04:05Z" {
		t.Errorf("payload %s", *payload)
	}
	if sent["recall_k"] != 0.0 || sent["auto_memory"] != false {
		t.Errorf("recall_k or auto_memory missing: %s", *payload)
	}
	if cm, _ := sent["context_messages"].([]any); len(cm) != 1 {
		t.Errorf("context_messages missing: %s", *payload)
	}
}

func TestChatErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		kind   core.ErrorKind
		msg    string
	}{
		{"error event", 200, "data: {\"type\":\"token\",\"content\":\"par\"}\n\ndata: {\"type\":\"error\",\"error\":\"LLM backend ollama at http://x failed\"}\n\n", core.KindUpstream, "ollama"},
		{"stream ends without done", 200, "data: {\"type\":\"token\",\"content\":\"partial\"}\n\n", core.KindUpstream, "before it was complete"},
		{"not JSON", 200, "data: {oops\n\n", core.KindUpstream, "not valid"},
		{"400", 400, `{"detail":"prompt: is required"}`, core.KindInvalid, "prompt: is required"},
		{"401", 401, `{"detail":"missing API key"}`, core.KindUnauthorized, "missing API key"},
		{"500", 500, `{"detail":"LLM down"}`, core.KindUpstream, "LLM down"},
		{"503 without JSON", 503, `gateway sad`, core.KindUnavailable, "503"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _, _ := sseServer(t, tc.status, tc.body)
			_, _, err := collect(t, c, core.ChatRequest{Prompt: "x", Store: true})
			if err == nil || core.KindOf(err) != tc.kind || !strings.Contains(core.SafeMessage(err), tc.msg) {
				t.Errorf("err = %v (kind %d, safe %q), want kind %d with %q", err, core.KindOf(err), core.SafeMessage(err), tc.kind, tc.msg)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		url := srv.URL
		srv.Close()
		_, err := client.New(url, "k", nil).Chat(context.Background(), core.ChatRequest{Prompt: "x"}, func(core.Event) error { return nil })
		if core.KindOf(err) != core.KindUpstream || !strings.Contains(core.SafeMessage(err), "not reachable") || strings.Contains(err.Error(), "Bearer") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("emit error stops the stream", func(t *testing.T) {
		c, _, _ := sseServer(t, 200, "data: {\"type\":\"token\",\"content\":\"a\"}\n\n")
		stop := errors.New("client gone")
		_, err := c.Chat(context.Background(), core.ChatRequest{Prompt: "x"}, func(core.Event) error { return stop })
		if !errors.Is(err, stop) {
			t.Errorf("err = %v, want the emit error", err)
		}
	})
}

func TestChatCancel(t *testing.T) {
	released := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"type\":\"token\",\"content\":\"a\"}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the client must hang up
		close(released)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := client.New(srv.URL, "", nil).Chat(ctx, core.ChatRequest{Prompt: "x"}, func(core.Event) error { return nil })
	if core.KindOf(err) != core.KindCanceled {
		t.Errorf("err = %v, want KindCanceled", err)
	}
	select {
	case <-released:
	case <-time.After(5 * time.Second):
		t.Error("the connection stayed open after the context ended")
	}
}

func TestHealth(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/healthz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, `{"ok":false,"service":"ada","chroma":{"ok":false,"backend":"sqlite-vec","error":"vector store unavailable"},"llm":{"ok":true,"backend":"ollama","model":"m","error":null}}`)
	}))
	defer srv.Close()
	h, err := client.New(srv.URL, "", nil).Health(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h.OK || h.Store.OK || h.Store.Error == nil || !h.LLM.OK || h.LLM.Model != "m" {
		t.Errorf("health %+v", h)
	}
}
