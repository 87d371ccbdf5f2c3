package llmtest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// post sends body to url with a plain net/http client and returns the
// status, the Content-Type and the non-blank lines of the body.
func post(t *testing.T, url, body string) (int, string, []string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx(t), http.MethodPost, url, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if sc.Text() != "" {
			lines = append(lines, sc.Text())
		}
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), lines
}

func TestOllamaWire(t *testing.T) {
	srv := llmtest.New(t)
	srv.Script(llmtest.Reply{Thinking: []string{"t"}, Tokens: []string{"a", "b"}})
	status, ct, lines := post(t, srv.URL()+"/api/chat", `{"model":"m","messages":[{"role":"user","content":"hi"}],"think":false}`)
	if status != 200 || ct != "application/x-ndjson" || len(lines) != 4 {
		t.Fatalf("status %d, type %q, lines %q", status, ct, lines)
	}
	var first, last struct {
		Model   string
		Message struct{ Content, Thinking string }
		Done    bool
	}
	_ = json.Unmarshal([]byte(lines[0]), &first)
	_ = json.Unmarshal([]byte(lines[3]), &last)
	if first.Message.Thinking != "t" || first.Message.Content != "" || first.Model != "m" || !last.Done {
		t.Errorf("lines %q", lines)
	}
	r := srv.Requests()[0]
	if r.API != "ollama" || r.Think == nil || *r.Think || !r.Stream || r.Messages[0].Content != "hi" {
		t.Errorf("recorded %+v", r)
	}
}

func TestOpenAIWire(t *testing.T) {
	srv := llmtest.New(t)
	srv.Script(llmtest.Reply{Thinking: []string{"t"}, Tokens: []string{"a"}, ReasoningField: "reasoning"})
	status, ct, lines := post(t, srv.URL()+"/v1/chat/completions", `{"model":"m","messages":[],"stream":true}`)
	if status != 200 || ct != "text/event-stream" || len(lines) != 5 || lines[4] != "data: [DONE]" {
		t.Fatalf("status %d, type %q, lines %q", status, ct, lines)
	}
	if !strings.Contains(lines[0], `"reasoning":"t"`) || !strings.Contains(lines[1], `"content":"a"`) ||
		!strings.Contains(lines[2], `"finish_reason":"stop"`) || !strings.Contains(lines[3], `"usage":{"completion_tokens":1,`) {
		t.Errorf("lines %q", lines)
	}
}

// Format records the schema from either protocol's shape, and nothing for
// a request without one or an OpenAI format that carries no schema.
func TestFormatRecorded(t *testing.T) {
	schema := `{"type":"object","properties":{"a":{"type":"string"}}}`
	cases := []struct {
		name, path, body, want string
	}{
		{"ollama schema", "/api/chat", `{"model":"m","format":` + schema + `}`, schema},
		{"ollama json", "/api/chat", `{"model":"m","format":"json"}`, `"json"`},
		{"ollama null", "/api/chat", `{"model":"m","format":null}`, ""},
		{"ollama none", "/api/chat", `{"model":"m"}`, ""},
		{"openai schema", "/v1/chat/completions",
			`{"model":"m","stream":true,"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":` + schema + `,"strict":true}}}`, schema},
		{"openai json_object", "/v1/chat/completions", `{"model":"m","stream":true,"response_format":{"type":"json_object"}}`, ""},
		{"openai none", "/v1/chat/completions", `{"model":"m","stream":true}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			if status, _, _ := post(t, srv.URL()+tc.path, tc.body); status != 200 {
				t.Fatalf("status %d", status)
			}
			r := srv.Requests()[0]
			if string(r.Format) != tc.want || (tc.want == "" && r.Format != nil) {
				t.Errorf("Format = %q, want %q", r.Format, tc.want)
			}
		})
	}
}

func TestNonStreamingRefused(t *testing.T) {
	srv := llmtest.New(t)
	if status, _, _ := post(t, srv.URL()+"/v1/chat/completions", `{"model":"m","messages":[]}`); status != 400 {
		t.Errorf("status %d", status)
	}
	if status, _, _ := post(t, srv.URL()+"/api/chat", `{"model":"m","stream":false}`); status != 400 {
		t.Errorf("status %d", status)
	}
	if status, _, _ := post(t, srv.URL()+"/api/chat", `{not json`); status != 400 {
		t.Errorf("status %d", status)
	}
}

func TestScriptsThenDefault(t *testing.T) {
	srv := llmtest.New(t)
	srv.Script(llmtest.Reply{Tokens: []string{"one"}})
	srv.Default(llmtest.Reply{Tokens: []string{"dflt"}})
	for _, want := range []string{"one", "dflt", "dflt"} {
		_, _, lines := post(t, srv.URL()+"/api/chat", `{"model":"m"}`)
		if !strings.Contains(lines[0], want) {
			t.Errorf("got %q, want %q", lines[0], want)
		}
	}
}

func TestInstantKeepsNoRecords(t *testing.T) {
	srv := llmtest.New(t)
	srv.Instant(true)
	srv.Default(llmtest.Reply{Tokens: []string{"x"}, ChunkDelay: time.Hour, FirstDelay: time.Hour})
	for range 3 {
		if status, _, _ := post(t, srv.URL()+"/api/chat", `{"model":"m"}`); status != 200 {
			t.Fatal(status)
		}
	}
	if srv.Count() != 3 || len(srv.Requests()) != 0 {
		t.Errorf("count %d, records %d", srv.Count(), len(srv.Requests()))
	}
}

// A client that disconnects while the fake holds its reply is counted, and
// Close does not wait for a hold that is never released.
func TestCancelledAndCloseReleasesHold(t *testing.T) {
	srv := llmtest.New(t)
	never := make(chan struct{})
	srv.Script(llmtest.Reply{Tokens: []string{"a"}, Hold: never}, llmtest.Reply{Tokens: []string{"a"}, Hold: never})
	c, cancel := context.WithCancel(ctx(t))
	req, _ := http.NewRequestWithContext(c, http.MethodPost, srv.URL()+"/api/chat", strings.NewReader(`{}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	if err := srv.WaitCancelled(ctx(t), 1); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[0]; !r.Cancelled || !r.Finished {
		t.Errorf("record %+v", r)
	}

	// The second request stays held until Close.
	c2 := ctx(t)
	go func() {
		req, _ := http.NewRequestWithContext(c2, http.MethodPost, srv.URL()+"/api/chat", strings.NewReader(`{}`))
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	if err := srv.WaitRequests(ctx(t), 2); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close blocked on a held reply")
	}
}

func TestModelsVersionAndAuth(t *testing.T) {
	srv := llmtest.New(t)
	for _, path := range []string{"/api/version", "/api/tags", "/v1/models", "/"} {
		resp, err := http.Get(srv.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
	}
	srv.RequireAPIKey("k")
	resp, err := http.Get(srv.URL() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("without key: %d", resp.StatusCode)
	}
}

func TestEmbedEndpoints(t *testing.T) {
	srv := llmtest.New(t)
	_, _, lines := post(t, srv.URL()+"/api/embed", `{"model":"e","input":"solo"}`)
	var o struct{ Embeddings [][]float32 }
	if err := json.Unmarshal([]byte(strings.Join(lines, "")), &o); err != nil || len(o.Embeddings) != 1 || len(o.Embeddings[0]) != core.Dim {
		t.Fatalf("ollama embed: %v %d", err, len(o.Embeddings))
	}
	_, _, lines = post(t, srv.URL()+"/v1/embeddings", `{"model":"e","input":["solo","duo"]}`)
	var a struct {
		Data []struct{ Embedding []float32 }
	}
	if err := json.Unmarshal([]byte(strings.Join(lines, "")), &a); err != nil || len(a.Data) != 2 {
		t.Fatalf("openai embed: %v", err)
	}
	if a.Data[0].Embedding[5] != o.Embeddings[0][5] || a.Data[0].Embedding[5] != llmtest.Vector("solo", core.Dim)[5] {
		t.Error("vectors are not deterministic across protocols")
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// TestRepliesByKind: a handler sees every request first; structured-output
// requests never take the chat scripts, so a background extraction cannot
// steal a chat's scripted reply.
func TestRepliesByKind(t *testing.T) {
	srv := llmtest.New(t)
	srv.Script(llmtest.Reply{Tokens: []string{"chat-script"}})
	srv.ScriptFormatted(llmtest.Reply{Tokens: []string{"formatted-script"}})
	srv.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		if len(r.Messages) == 1 && r.Messages[0].Content == "summarise" {
			return llmtest.Reply{Tokens: []string{"handled"}}, true
		}
		return llmtest.Reply{}, false
	})
	const formatted = `{"model":"m","format":{"type":"object"},"messages":[{"role":"user","content":"x"}]}`
	for _, tc := range []struct{ body, want string }{
		{formatted, "formatted-script"},
		{formatted, `{}`},
		{`{"model":"m","messages":[{"role":"user","content":"summarise"}]}`, "handled"},
		{`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "chat-script"},
		{`{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "ok"},
	} {
		_, _, lines := post(t, srv.URL()+"/api/chat", tc.body)
		var chunk struct {
			Message struct{ Content string } `json:"message"`
		}
		json.Unmarshal([]byte(lines[0]), &chunk)
		if chunk.Message.Content != tc.want {
			t.Errorf("%s: got %q, want %q", tc.body, chunk.Message.Content, tc.want)
		}
	}
	if f, c := len(srv.FormattedRequests()), len(srv.ChatRequests()); f != 2 || c != 3 {
		t.Errorf("formatted %d, chat %d; want 2 and 3", f, c)
	}
}
