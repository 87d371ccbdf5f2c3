package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http/httptrace"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// Config is what a contract test hands to the constructor under test.
type Config struct {
	BaseURL string
	APIKey  string
	Model   string
}

// testKey is the API key every contract case configures, so that each case
// also proves the key never shows in an error.
const testKey = "sk-llmtest-SECRET-4b1d"

// ClosedURL returns the base URL of a port on 127.0.0.1 that nothing listens
// on, for "backend down" tests.
func ClosedURL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

// Collect runs llm.Chat and returns every text event it emitted (thinking
// and answer; the usage event is CollectUsage's).
func Collect(ctx context.Context, llm core.LLM, req core.LLMRequest) ([]core.LLMEvent, error) {
	events, _, err := CollectUsage(ctx, llm, req)
	return events, err
}

// CollectUsage runs llm.Chat and returns its text events and the token
// counts it reported.
func CollectUsage(ctx context.Context, llm core.LLM, req core.LLMRequest) ([]core.LLMEvent, []core.Usage, error) {
	var events []core.LLMEvent
	var usage []core.Usage
	err := llm.Chat(ctx, req, func(e core.LLMEvent) error {
		if e.Kind == core.LLMUsage {
			usage = append(usage, e.Usage)
			return nil
		}
		events = append(events, e)
		return nil
	})
	return events, usage, err
}

// Tok is an expected answer-text event.
func Tok(s string) core.LLMEvent { return core.LLMEvent{Kind: core.LLMToken, Text: s} }

// Think is an expected thinking event.
func Think(s string) core.LLMEvent { return core.LLMEvent{Kind: core.LLMThinking, Text: s} }

var hello = core.LLMRequest{Messages: []core.Message{{Role: "user", Content: "hi"}}}

// RunLLMContract checks the behaviour core.LLM promises against a fresh fake
// for each case: streaming order, thinking, errors that name the backend and
// address without secrets, cancellation and emit errors. Protocol details
// (the think flag, headers) are left to each client's own tests.
func RunLLMContract(t *testing.T, newLLM func(Config) core.LLM) {
	t.Run("streams", func(t *testing.T) { contractStreams(t, newLLM) })
	t.Run("failures", func(t *testing.T) { contractFailures(t, newLLM) })
	t.Run("server down", func(t *testing.T) {
		base := ClosedURL(t)
		llm := newLLM(Config{BaseURL: base, APIKey: testKey, Model: "m"})
		_, err := Collect(testCtx(t), llm, hello)
		wantErr(t, err, core.KindUpstream, base, "connection refused")
		wantErr(t, llm.Ping(testCtx(t)), core.KindUpstream, base, "connection refused")
	})
	t.Run("credentials in base URL stay hidden", func(t *testing.T) {
		base := ClosedURL(t)
		llm := newLLM(Config{BaseURL: strings.Replace(base, "://", "://user:hunter2@", 1), Model: "m"})
		_, err := Collect(testCtx(t), llm, hello)
		wantErr(t, err, core.KindUpstream, base)
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("error shows the password: %v", err)
		}
	})
	t.Run("ping", func(t *testing.T) {
		srv := New(t)
		if err := newLLM(Config{BaseURL: srv.URL(), APIKey: testKey, Model: ModelName}).Ping(testCtx(t)); err != nil {
			t.Fatal(err)
		}
	})
	// The server answers but lacks the model: every chat would fail, so
	// Ping fails too, naming the model.
	t.Run("ping without the model", func(t *testing.T) {
		srv := New(t)
		err := newLLM(Config{BaseURL: srv.URL(), APIKey: testKey, Model: "qwen3:8b"}).Ping(testCtx(t))
		wantErr(t, err, core.KindUpstream, srv.URL(), "model qwen3:8b", "LLM_MODEL")
	})
	t.Run("wrong API key", func(t *testing.T) {
		srv := New(t)
		srv.RequireAPIKey("sk-right")
		// The fake echoes the key it was given in the 401 body.
		llm := newLLM(Config{BaseURL: srv.URL(), APIKey: testKey, Model: "m"})
		_, err := Collect(testCtx(t), llm, hello)
		wantErr(t, err, core.KindUpstream, srv.URL(), "401")
		wantErr(t, llm.Ping(testCtx(t)), core.KindUpstream, srv.URL(), "401")
	})
	t.Run("cancellation", func(t *testing.T) { contractCancel(t, newLLM) })
	t.Run("first token before the reply ends", func(t *testing.T) { contractFirstToken(t, newLLM) })
	t.Run("concurrent chats", func(t *testing.T) { contractConcurrent(t, newLLM) })
	t.Run("keep-alive connection reused", func(t *testing.T) { contractReuse(t, newLLM) })
	t.Run("sampling options and usage", func(t *testing.T) { contractOptionsAndUsage(t, newLLM) })
	t.Run("client tools", func(t *testing.T) { contractTools(t, newLLM) })
}

func contractStreams(t *testing.T, newLLM func(Config) core.LLM) {
	cases := []struct {
		name  string
		reply Reply
		want  []core.LLMEvent
	}{
		{"tokens in order", Reply{Tokens: []string{"Hel", "lo", ", ", "world"}},
			[]core.LLMEvent{Tok("Hel"), Tok("lo"), Tok(", "), Tok("world")}},
		{"thinking separated", Reply{Thinking: []string{"hm", "m"}, Tokens: []string{"yes"}},
			[]core.LLMEvent{Think("hm"), Think("m"), Tok("yes")}},
		{"thinking via reasoning field", Reply{Thinking: []string{"r"}, Tokens: []string{"a"}, ReasoningField: "reasoning"},
			[]core.LLMEvent{Think("r"), Tok("a")}},
		{"unicode and newlines", Reply{Tokens: []string{"é\n", "日本", "\"q\""}},
			[]core.LLMEvent{Tok("é\n"), Tok("日本"), Tok("\"q\"")}},
		{"empty reply", Reply{}, nil},
		{"slow chunks", Reply{Tokens: []string{"a", "b"}, FirstDelay: 20 * time.Millisecond, ChunkDelay: 20 * time.Millisecond},
			[]core.LLMEvent{Tok("a"), Tok("b")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := New(t)
			srv.Script(tc.reply)
			got, err := Collect(testCtx(t), newLLM(Config{BaseURL: srv.URL(), APIKey: testKey, Model: "m"}), hello)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("events = %v, want %v", got, tc.want)
			}
			reqs := srv.ChatRequests()
			if len(reqs) != 1 || reqs[0].Model != "m" || len(reqs[0].Messages) != 1 || !reflect.DeepEqual(reqs[0].Messages[0], hello.Messages[0]) {
				t.Errorf("fake received %+v", reqs)
			}
		})
	}
}

func contractFailures(t *testing.T, newLLM func(Config) core.LLM) {
	cases := []struct {
		name  string
		reply Reply
		want  []string // substrings of the error
	}{
		{"HTTP 500", Reply{Status: 500, Error: "model crashed"}, []string{"500", "model crashed"}},
		{"HTTP 404", Reply{Status: 404, Error: `model "m" not found`}, []string{"404", "not found"}},
		{"error body echoes the key", Reply{Status: 400, Error: "bad key " + testKey}, []string{"400", "[redacted]"}},
		{"malformed chunk", Reply{Tokens: []string{"a"}, Malformed: true}, []string{"malformed"}},
		{"error event in the stream", Reply{Tokens: []string{"a"}, StreamError: true, Error: "out of memory"}, []string{"out of memory"}},
		{"connection cut mid-stream", Reply{Tokens: []string{"a"}, Abort: true}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := New(t)
			srv.Script(tc.reply)
			_, err := Collect(testCtx(t), newLLM(Config{BaseURL: srv.URL(), APIKey: testKey, Model: "m"}), hello)
			wantErr(t, err, core.KindUpstream, append([]string{srv.URL()}, tc.want...)...)
		})
	}
}

func contractCancel(t *testing.T, newLLM func(Config) core.LLM) {
	t.Run("deadline", func(t *testing.T) {
		srv := New(t)
		srv.Script(Reply{Tokens: []string{"a"}, Hang: true})
		ctx, cancel := context.WithTimeout(testCtx(t), 200*time.Millisecond)
		defer cancel()
		_, err := Collect(ctx, newLLM(Config{BaseURL: srv.URL(), APIKey: testKey, Model: "m"}), hello)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want DeadlineExceeded", err)
		}
		wantErr(t, err, core.KindUpstream, srv.URL(), "timed out")
		waitCancelled(t, srv)
	})
	t.Run("deadline before the first byte", func(t *testing.T) {
		srv := New(t)
		srv.Script(Reply{Tokens: []string{"a"}, FirstDelay: time.Minute})
		ctx, cancel := context.WithTimeout(testCtx(t), 200*time.Millisecond)
		defer cancel()
		_, err := Collect(ctx, newLLM(Config{BaseURL: srv.URL(), APIKey: testKey, Model: "m"}), hello)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want DeadlineExceeded", err)
		}
		waitCancelled(t, srv)
	})
	t.Run("caller cancels", func(t *testing.T) {
		srv := New(t)
		srv.Script(Reply{Tokens: []string{"a", "b"}, Hang: true})
		ctx, cancel := context.WithCancel(testCtx(t))
		defer cancel()
		err := newLLM(Config{BaseURL: srv.URL(), APIKey: testKey, Model: "m"}).Chat(ctx, hello, func(e core.LLMEvent) error {
			cancel() // the client went away after the first token
			return nil
		})
		if !errors.Is(err, context.Canceled) || core.KindOf(err) != core.KindCanceled {
			t.Fatalf("err = %v (kind %v), want context.Canceled, KindCanceled", err, core.KindOf(err))
		}
		waitCancelled(t, srv)
	})
	t.Run("emit error stops the stream", func(t *testing.T) {
		srv := New(t)
		srv.Script(Reply{Tokens: []string{"a", "b", "c"}, Hang: true})
		stop := errors.New("client gone")
		calls := 0
		err := newLLM(Config{BaseURL: srv.URL(), APIKey: testKey, Model: "m"}).Chat(testCtx(t), hello, func(core.LLMEvent) error {
			calls++
			return stop
		})
		if err != stop { // the contract is "returned unchanged", not wrapped
			t.Fatalf("err = %v, want exactly the emit error", err)
		}
		if calls != 1 {
			t.Errorf("emit called %d times after failing", calls)
		}
		waitCancelled(t, srv)
	})
}

// contractFirstToken proves streaming: the first token reaches the caller
// while the fake is still holding the rest of the reply.
func contractFirstToken(t *testing.T, newLLM func(Config) core.LLM) {
	srv := New(t)
	release := make(chan struct{})
	srv.Script(Reply{Tokens: []string{"first", "second"}, Hold: release, HoldAfter: 1})
	events := make(chan core.LLMEvent, 2)
	done := make(chan error, 1)
	llm, ctx := newLLM(Config{BaseURL: srv.URL(), APIKey: testKey, Model: "m"}), testCtx(t)
	go func() {
		done <- llm.Chat(ctx, hello, func(e core.LLMEvent) error {
			events <- e
			return nil
		})
	}()
	select {
	case e := <-events:
		if e != Tok("first") {
			t.Fatalf("first event = %v", e)
		}
	case <-time.After(5 * time.Second):
		close(release)
		t.Fatal("first token did not arrive while the reply was held")
	}
	select {
	case err := <-done:
		t.Fatalf("Chat returned before the reply was released: %v", err)
	default:
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if e := <-events; e != Tok("second") {
		t.Errorf("second event = %v", e)
	}
}

func contractConcurrent(t *testing.T, newLLM func(Config) core.LLM) {
	srv := New(t)
	llm := newLLM(Config{BaseURL: srv.URL(), APIKey: testKey, Model: "m"})
	var wg sync.WaitGroup
	errs := make(chan error, 25)
	for range 25 {
		wg.Go(func() {
			got, err := Collect(testCtx(t), llm, hello)
			if err == nil && !slices.Equal(got, []core.LLMEvent{Tok("ok")}) {
				err = errors.New("wrong events")
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := srv.Count(); n != 25 {
		t.Errorf("fake saw %d requests, want 25", n)
	}
}

// contractReuse checks that a finished stream leaves its connection usable:
// without it, a benchmark's thousands of chats each open a new connection.
// It catches a body left open or abandoned before the end marker; whether
// the final drain matters depends on packet timing, so that part is not
// proven here.
func contractReuse(t *testing.T, newLLM func(Config) core.LLM) {
	srv := New(t)
	llm := newLLM(Config{BaseURL: srv.URL(), APIKey: testKey, Model: "m"})
	reused := false
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
	for range 2 {
		if _, err := Collect(httptrace.WithClientTrace(testCtx(t), trace), llm, hello); err != nil {
			t.Fatal(err)
		}
	}
	if !reused {
		t.Error("the second chat opened a new connection")
	}
}

// wantErr checks kind, that the message contains each of parts, and that the
// test key does not appear anywhere in the error chain's text. A part that is
// an address (http://…) belongs in the internal text only: the client-safe
// message names the backend, not where it runs.
func wantErr(t *testing.T, err error, kind core.ErrorKind, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("err = nil")
	}
	if got := core.KindOf(err); got != kind {
		t.Errorf("kind = %v, want %v (err: %v)", got, kind, err)
	}
	msg := core.SafeMessage(err)
	for _, p := range parts {
		if strings.HasPrefix(p, "http://") {
			if !strings.Contains(err.Error(), p) || strings.Contains(msg, p) {
				t.Errorf("the address %s must be in the error (%q) but not in its message (%q)", p, err.Error(), msg)
			}
			continue
		}
		if !strings.Contains(msg, p) {
			t.Errorf("message %q does not contain %q", msg, p)
		}
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("error shows the API key: %v", err)
	}
}

func waitCancelled(t *testing.T, srv *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.WaitCancelled(ctx, 1); err != nil {
		t.Fatalf("the fake did not see the request cancelled: %v", err)
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// contractOptionsAndUsage checks that the client's sampling settings reach
// the backend under the backend's own names, that a request without them
// sends none, and that the token counts the backend reports come back once.
func contractOptionsAndUsage(t *testing.T, newLLM func(Config) core.LLM) {
	srv := New(t)
	srv.Default(Reply{Tokens: []string{"a", "b", "c"}})
	llm := newLLM(Config{BaseURL: srv.URL(), APIKey: testKey, Model: "m"})
	temp, topP, maxTok := 0.25, 0.5, 7
	req := core.LLMRequest{Messages: []core.Message{{Role: "user", Content: "four words in here"}},
		Options: core.GenOptions{Temperature: &temp, TopP: &topP, MaxTokens: &maxTok, Stop: []string{"END"}}}
	events, usage, err := CollectUsage(testCtx(t), llm, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 3 {
		t.Errorf("events = %v, want the three tokens", events)
	}
	if want := []core.Usage{{PromptTokens: 4, CompletionTokens: 3}}; !slices.Equal(usage, want) {
		t.Errorf("usage = %v, want %v", usage, want)
	}
	if _, _, err := CollectUsage(testCtx(t), llm, hello); err != nil {
		t.Fatal(err)
	}
	reqs := srv.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("fake saw %d chat requests, want 2", len(reqs))
	}
	var body map[string]any
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"temperature": 0.25, "top_p": 0.5, "max_tokens": 7.0, "stop": []any{"END"}}
	got := body
	if reqs[0].API == "ollama" {
		want["num_predict"] = want["max_tokens"]
		delete(want, "max_tokens")
		got, _ = body["options"].(map[string]any)
	}
	for k, v := range want {
		if !reflect.DeepEqual(got[k], v) {
			t.Errorf("%s request: %s = %v, want %v (body %s)", reqs[0].API, k, got[k], v, reqs[0].Body)
		}
	}
	var plain map[string]any
	if err := json.Unmarshal(reqs[1].Body, &plain); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"options", "temperature", "top_p", "max_tokens", "stop"} {
		if _, ok := plain[k]; ok {
			t.Errorf("a request without options sends %q: %s", k, reqs[1].Body)
		}
	}
}

// contractTools checks the client's tools round trip: the tools reach the
// backend, its calls come back as LLMToolCall events (whole once joined by
// index), and a history with an assistant's calls and a tool's result
// reaches the backend in its protocol's shape.
func contractTools(t *testing.T, newLLM func(Config) core.LLM) {
	srv := New(t)
	srv.Default(Reply{ToolCalls: []ToolCallReply{{Name: "get_weather", Arguments: `{"city":"Lyon"}`}}})
	llm := newLLM(Config{BaseURL: srv.URL(), APIKey: testKey, Model: "m"})
	tools := json.RawMessage(`[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]`)
	req := core.LLMRequest{Tools: tools, Messages: []core.Message{
		{Role: "user", Content: "weather in Paris?"},
		{Role: "assistant", ToolCalls: []core.ToolCall{{ID: "c1", Type: "function", Function: core.ToolFunction{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
		{Role: "tool", ToolCallID: "c1", Content: "12°C"},
		{Role: "user", Content: "and in Lyon?"},
	}}
	var calls []core.ToolCallDelta
	err := llm.Chat(testCtx(t), req, func(ev core.LLMEvent) error {
		if ev.Kind == core.LLMToolCall {
			calls = append(calls, *ev.ToolCall)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	name, args := "", ""
	for _, c := range calls {
		if c.Index == 0 {
			name += c.Name
			args += c.Arguments
		}
	}
	if name != "get_weather" || args != `{"city":"Lyon"}` || calls[0].ID == "" {
		t.Errorf("tool calls %+v", calls)
	}
	rec := srv.ChatRequests()[0]
	var body struct {
		Tools json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(rec.Body, &body)
	if !bytes.Contains(body.Tools, []byte(`"get_weather"`)) {
		t.Errorf("the tools did not reach the backend: %s", rec.Body)
	}
	if m := rec.Messages; len(m) != 4 || len(m[1].ToolCalls) != 1 || m[1].ToolCalls[0].Function.Name != "get_weather" ||
		m[2].Role != "tool" || m[2].Content != "12°C" {
		t.Errorf("the history reached the backend as %+v", m)
	}
}
