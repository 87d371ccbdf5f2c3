package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/storage"
	"github.com/ada-chat/ada/storage/vecindex"
)

type chatResponse struct {
	Response           string          `json:"response"`
	Thinking           *string         `json:"thinking"`
	ConversationID     string          `json:"conversation_id"`
	UserTimestamp      string          `json:"user_timestamp"`
	AssistantTimestamp string          `json:"assistant_timestamp"`
	RequestID          string          `json:"request_id"`
	UsedContext        json.RawMessage `json:"used_context"`
}

type usedContext struct {
	Turns []struct {
		ID, Text, Role string
	} `json:"turns"`
	Memories []struct {
		ID, Text, Scope string
	} `json:"memories"`
	Persona struct {
		Included bool    `json:"included"`
		Version  *string `json:"version"`
	} `json:"persona"`
}

// startChatAda starts Ada against a scripted fake LLM of the given backend.
func startChatAda(t testing.TB, backend string, extra map[string]string) (*adaProc, *llmtest.Server, map[string]string) {
	t.Helper()
	llm := llmtest.New(t)
	env := map[string]string{"LLM_BACKEND": backend, "LLM_BASE_URL": llm.URL(), "LLM_MODEL": llmtest.ModelName}
	for k, v := range extra {
		env[k] = v
	}
	env = testEnv(t, env)
	return startAda(t, "serve", env), llm, env
}

func documentsIn(t *testing.T, env map[string]string, f core.Filter) []core.Document {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(env["DATA_DIR"], "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	docs, err := db.List(context.Background(), f, 1000)
	if err != nil {
		t.Fatal(err)
	}
	// List leaves the embeddings out; the tests compare them. A document
	// the running server deleted in between (a redaction, a cascade) is
	// gone, as a later List would say.
	full := docs[:0]
	for _, d := range docs {
		d, err := db.Get(context.Background(), d.ID)
		switch {
		case core.KindOf(err) == core.KindNotFound:
			continue
		case err != nil:
			t.Fatal(err)
		}
		full = append(full, d)
	}
	return full
}

func TestThreeExchangesCarryEarlierTurnsInOrder(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", nil)
	llm.Script(llmtest.Reply{Tokens: []string{"Hi Sam"}}, llmtest.Reply{Tokens: []string{"Blue, noted"}}, llmtest.Reply{Tokens: []string{"Sam, blue"}})
	var r1, r2, r3 chatResponse
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "My name is Sam"}, &r1)
	if !core.ValidConversationID(r1.ConversationID) || r1.Response != "Hi Sam" || r1.RequestID == "" {
		t.Fatalf("first reply: %+v", r1)
	}
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "My favourite colour is blue", "conversation_id": r1.ConversationID}, &r2)
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "What do you know about me?", "conversation_id": r1.ConversationID}, &r3)

	reqs := llm.ChatRequests()
	if len(reqs) != 3 {
		t.Fatalf("the LLM got %d requests, want 3", len(reqs))
	}
	var got []string
	for _, m := range reqs[2].Messages[1:] {
		got = append(got, m.Role+":"+m.Content)
	}
	want := []string{"user:My name is Sam", "assistant:Hi Sam", "user:My favourite colour is blue", "assistant:Blue, noted", "user:What do you know about me?"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("third prompt's messages:\n got %q\nwant %q", got, want)
	}
	if sys := reqs[2].Messages[0]; sys.Role != "system" || !strings.Contains(sys.Content, "## Current time") || !strings.Contains(sys.Content, "## Persona") {
		t.Fatalf("system message lacks labelled sections:\n%s", sys.Content)
	}
	var used usedContext
	json.Unmarshal(r3.UsedContext, &used)
	if len(used.Turns) != 4 || used.Turns[0].Text != "My name is Sam" || used.Turns[3].Text != "Blue, noted" || used.Turns[0].ID == "" {
		t.Fatalf("used_context.turns = %+v", used.Turns)
	}
	if !used.Persona.Included || used.Persona.Version == nil {
		t.Fatalf("persona not reported: %+v", used.Persona)
	}
	var conv struct {
		Turns []struct{ Role, Content string } `json:"turns"`
	}
	ada.call("GET", "/v1/conversations/"+r1.ConversationID, nil, &conv)
	if len(conv.Turns) != 6 || conv.Turns[5].Content != "Sam, blue" {
		t.Fatalf("conversation = %+v", conv)
	}
	var recent []struct {
		ID        string `json:"id"`
		TurnCount int    `json:"turn_count"`
		Preview   string `json:"preview"`
	}
	ada.call("GET", "/v1/conversations/recent", nil, &recent)
	if len(recent) != 1 || recent[0].ID != r1.ConversationID || recent[0].TurnCount != 6 || recent[0].Preview != "My name is Sam" {
		t.Fatalf("recent = %+v", recent)
	}
	if st := ada.call("GET", "/v1/conversations/"+core.NewConversationID(), nil, nil); st != 404 {
		t.Fatalf("unknown conversation: %d", st)
	}
}

func TestEntityMemoryIsUsedOnlyWithItsEntity(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", nil)
	ada.call("POST", "/v1/memory", map[string]any{"text": "Project falcon launches on the ninth of March", "entity": "falcon"}, nil)
	var with, without chatResponse
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "When does project falcon launch?", "entity": "falcon"}, &with)
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "When does project falcon launch?"}, &without)
	reqs := llm.ChatRequests()
	if !strings.Contains(reqs[0].Messages[0].Content, "ninth of March") {
		t.Fatal("the entity memory is missing from the entity-scoped prompt")
	}
	if strings.Contains(reqs[1].Messages[0].Content, "ninth of March") {
		t.Fatal("the entity memory leaked into an unscoped prompt")
	}
	var u1, u2 usedContext
	json.Unmarshal(with.UsedContext, &u1)
	json.Unmarshal(without.UsedContext, &u2)
	if len(u1.Memories) != 1 || u1.Memories[0].Scope != "entity:falcon" || len(u2.Memories) != 0 {
		t.Fatalf("used memories: with %+v, without %+v", u1.Memories, u2.Memories)
	}
}

func TestIncludeThinkingBothBackends(t *testing.T) {
	for _, backend := range []string{"ollama", "openai"} {
		for _, include := range []bool{true, false} {
			t.Run(backend+"/"+map[bool]string{true: "with", false: "without"}[include], func(t *testing.T) {
				ada, llm, env := startChatAda(t, backend, nil)
				llm.Script(llmtest.Reply{Thinking: []string{"let me ", "think"}, Tokens: []string{"Forty", "-two"}})
				var r chatResponse
				ada.call("POST", "/v1/chat", map[string]any{"prompt": "answer?", "include_thinking": include}, &r)
				if r.Response != "Forty-two" {
					t.Fatalf("response %q", r.Response)
				}
				if include && (r.Thinking == nil || *r.Thinking != "let me think") {
					t.Fatalf("thinking = %v, want the reasoning", r.Thinking)
				}
				if !include && r.Thinking != nil {
					t.Fatalf("thinking = %q, want null", *r.Thinking)
				}
				if backend == "ollama" {
					if th := llm.ChatRequests()[0].Think; th == nil || *th != include {
						t.Fatalf("think flag sent = %v, want %v", th, include)
					}
				}
				for _, d := range documentsIn(t, env, core.Filter{Type: core.DocTurn}) {
					if strings.Contains(d.Text, "think") {
						t.Fatalf("thinking reached a stored turn: %q", d.Text)
					}
				}
			})
		}
	}
}

func TestStreamEventsMatchTheJSONChat(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", nil)
	llm.Script(llmtest.Reply{Thinking: []string{"hm"}, Tokens: []string{"Hello", " there"}})
	s := ada.openStream(map[string]any{"prompt": "hi", "include_thinking": true})
	if ct := s.resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
	if s.resp.Header.Get("Cache-Control") != "no-cache" || s.resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("headers %v", s.resp.Header)
	}
	evs := s.all()
	if got := eventTypes(evs); got != "thinking,token,done" {
		t.Fatalf("event order %s", got)
	}
	if joinContent(evs, "token") != "Hello there" {
		t.Fatalf("tokens %q", joinContent(evs, "token"))
	}
	var done map[string]any
	json.Unmarshal(evs[len(evs)-1].Raw, &done)
	for _, k := range []string{"conversation_id", "used_context", "user_timestamp", "assistant_timestamp", "request_id"} {
		if _, ok := done[k]; !ok {
			t.Fatalf("done lacks %s: %v", k, done)
		}
	}
	// The same request as JSON has the same fields.
	llm.Script(llmtest.Reply{Thinking: []string{"hm"}, Tokens: []string{"Hello", " there"}})
	var plain map[string]any
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "hi", "include_thinking": true}, &plain)
	delete(done, "type")
	for k := range plain {
		if _, ok := done[k]; !ok {
			t.Errorf("done lacks the JSON field %s", k)
		}
	}
	for k := range done {
		if _, ok := plain[k]; !ok {
			t.Errorf("the JSON reply lacks done's field %s", k)
		}
	}
}

func TestStreamIsNotBuffered(t *testing.T) {
	ada, llm, _ := startChatAda(t, "openai", nil)
	release := make(chan struct{})
	llm.Script(llmtest.Reply{Tokens: []string{"first", " second"}, Hold: release, HoldAfter: 1})
	s := ada.openStream(map[string]any{"prompt": "go"})
	got := make(chan sseEvent, 1)
	go func() {
		ev, _ := s.next()
		got <- ev
	}()
	select {
	case ev := <-got:
		if ev.Type != "token" || ev.Content != "first" {
			t.Fatalf("first event %+v", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first token did not reach the client while the LLM was still answering")
	}
	close(release)
	if got := joinContent(s.all(), "token"); got != " second" {
		t.Fatalf("rest %q", got)
	}
}

func TestStreamSendsKeepAliveWhileTheModelIsSilent(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", map[string]string{"SSE_KEEPALIVE_SECONDS": "1"})
	llm.Script(llmtest.Reply{Tokens: []string{"late"}, FirstDelay: 2500 * time.Millisecond})
	s := ada.openStream(map[string]any{"prompt": "slow"})
	ev, ok := s.next()
	if !ok || ev.Comment != "keep-alive" {
		t.Fatalf("first line %+v, want a keep-alive comment", ev)
	}
	if got := joinContent(s.all(), "token"); got != "late" {
		t.Fatalf("tokens %q", got)
	}
}

func TestClientDisconnectCancelsTheLLMAndWritesNothing(t *testing.T) {
	ada, llm, env := startChatAda(t, "ollama", nil)
	llm.Script(llmtest.Reply{Tokens: []string{"partial"}, Hang: true})
	s := ada.openStream(map[string]any{"prompt": "never finish", "save_memory": true})
	if ev, _ := s.next(); ev.Content != "partial" {
		t.Fatalf("first event %+v", ev)
	}
	s.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := llm.WaitCancelled(ctx, 1); err != nil {
		t.Fatalf("the LLM request was not cancelled after the client left: %v", err)
	}
	// The stream's log line is written when its handler has unwound; the
	// memory of save_memory would be background work.
	waitLogLine(t, ada, "msg=request", "path=/v1/chat/stream")
	ada.settle()
	if docs := documentsIn(t, env, core.Filter{Type: core.DocTurn}); len(docs) != 0 {
		t.Fatalf("an aborted stream wrote %d turns", len(docs))
	}
	if docs := documentsIn(t, env, core.Filter{Type: core.DocMemory}); len(docs) != 0 {
		t.Fatalf("an aborted stream wrote %d memories", len(docs))
	}
}

func TestSaveMemoryAfterACompletedStream(t *testing.T) {
	ada, llm, env := startChatAda(t, "ollama", nil)
	llm.Script(llmtest.Reply{Tokens: []string{"Noted."}})
	evs := ada.openStream(map[string]any{"prompt": "I am allergic to peanuts", "save_memory": true,
		"memory_text": "The user is allergic to peanuts", "memory_importance": 5}).all()
	if eventTypes(evs) != "token,done" {
		t.Fatalf("events %s", eventTypes(evs))
	}
	var mems []core.Document
	for i := 0; i < 50 && len(mems) == 0; i++ {
		mems = documentsIn(t, env, core.Filter{Type: core.DocMemory})
		time.Sleep(20 * time.Millisecond)
	}
	if len(mems) != 1 || mems[0].Text != "The user is allergic to peanuts" || mems[0].Meta.Importance != 5 || mems[0].Meta.ConversationID == "" {
		t.Fatalf("memories %+v", mems)
	}
}

func TestLLMFailuresGive500OrAnErrorEventAndWriteNothing(t *testing.T) {
	cases := []struct {
		name  string
		reply llmtest.Reply
		env   map[string]string
		want  string
		// status is 500 for a failed LLM, 504 when REQUEST_TIMEOUT_SECONDS ran out.
		status int
	}{
		{"server error", llmtest.Reply{Status: 500, Error: "model exploded"}, nil, "500", 500},
		{"malformed chunk", llmtest.Reply{Tokens: []string{"a"}, Malformed: true}, nil, "LLM backend", 500},
		{"too slow", llmtest.Reply{Tokens: []string{"a"}, FirstDelay: 5 * time.Second}, map[string]string{"REQUEST_TIMEOUT_SECONDS": "1"}, "timed out", 504},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ada, llm, env := startChatAda(t, "ollama", tc.env)
			llm.Script(tc.reply, tc.reply)
			var d detail
			if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "hi"}, &d); st != tc.status || !strings.Contains(d.Detail, tc.want) {
				t.Fatalf("chat: %d %q, want %d mentioning %q", st, d.Detail, tc.status, tc.want)
			}
			evs := ada.openStream(map[string]any{"prompt": "hi"}).all()
			last := evs[len(evs)-1]
			if last.Type != "error" || !strings.Contains(last.Error, tc.want) {
				t.Fatalf("stream ended with %+v", last)
			}
			if docs := documentsIn(t, env, core.Filter{Type: core.DocTurn}); len(docs) != 0 {
				t.Fatalf("a failed chat wrote %d turns", len(docs))
			}
		})
	}
	t.Run("backend down", func(t *testing.T) {
		ada := startAda(t, "serve", testEnv(t, map[string]string{"LLM_BASE_URL": "http://127.0.0.1:1"}))
		var d detail
		// The client learns the backend and the failure; the address is
		// in the log only.
		if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "hi"}, &d); st != 500 ||
			!strings.Contains(d.Detail, "ollama: connection refused") || strings.Contains(d.Detail, "127.0.0.1:1") {
			t.Fatalf("chat: %d %q", st, d.Detail)
		}
	})
}

func TestSummaryIsWrittenInTheBackground(t *testing.T) {
	ada, llm, env := startChatAda(t, "ollama", map[string]string{"RAG_SUMMARY_EVERY_N": "2"})
	release := make(chan struct{})
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	llm.Script(llmtest.Reply{Tokens: []string{"one"}}, llmtest.Reply{Tokens: []string{"two"}},
		llmtest.Reply{Tokens: []string{"Sam likes tea."}, Hold: release, HoldAfter: 0})
	var r chatResponse
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "I like tea"}, &r)
	start := time.Now()
	evs := ada.openStream(map[string]any{"prompt": "green tea", "conversation_id": r.ConversationID}).all()
	if eventTypes(evs) != "token,done" || time.Since(start) > 5*time.Second {
		t.Fatalf("done was delayed or missing: %s after %v", eventTypes(evs), time.Since(start))
	}
	if n := len(documentsIn(t, env, core.Filter{Type: core.DocSummary})); n != 0 {
		t.Fatalf("summary written before the model answered: %d", n)
	}
	close(release)
	var sums []core.Document
	for i := 0; i < 100 && len(sums) == 0; i++ {
		time.Sleep(50 * time.Millisecond)
		sums = documentsIn(t, env, core.Filter{Type: core.DocSummary})
	}
	if len(sums) != 1 || sums[0].Text != "Sam likes tea." || sums[0].Meta.TurnRange != "0-3" || sums[0].Meta.ConversationID != r.ConversationID {
		t.Fatalf("summaries %+v", sums)
	}
}

func TestChatRejectsBadInput(t *testing.T) {
	ada, llm, env := startChatAda(t, "ollama", nil)
	cases := []struct {
		name, body, field string
	}{
		{"missing prompt", `{}`, "prompt"},
		{"blank prompt", `{"prompt": "  "}`, "prompt"},
		{"prompt not a string", `{"prompt": 5}`, "prompt"},
		{"include_thinking not bool", `{"prompt": "x", "include_thinking": "yes"}`, "include_thinking"},
		{"turns_k 21", `{"prompt": "x", "turns_k": 21}`, "turns_k"},
		{"turns_k negative", `{"prompt": "x", "turns_k": -1}`, "turns_k"},
		{"faq_k 1.5", `{"prompt": "x", "faq_k": 1.5}`, "faq_k"},
		{"memory_k string", `{"prompt": "x", "memory_k": "3"}`, "memory_k"},
		{"bad conversation id", `{"prompt": "x", "conversation_id": "abc"}`, "conversation_id"},
		{"bad user_timestamp", `{"prompt": "x", "user_timestamp": "yesterday"}`, "user_timestamp"},
		{"bad importance", `{"prompt": "x", "memory_importance": 9}`, "memory_importance"},
		{"invalid JSON", `{"prompt": `, "JSON"},
		{"model not allowed", `{"prompt": "x", "model": "gpt-9"}`, "model"},
	}
	for _, path := range []string{"/v1/chat", "/v1/chat/stream"} {
		for _, tc := range cases {
			t.Run(path+"/"+tc.name, func(t *testing.T) {
				var d detail
				if st := ada.call("POST", path, tc.body, &d); st != 400 || !strings.Contains(d.Detail, tc.field) {
					t.Fatalf("%d %q, want 400 naming %s", st, d.Detail, tc.field)
				}
			})
		}
	}
	if n := len(llm.ChatRequests()); n != 0 {
		t.Fatalf("bad requests reached the LLM %d times", n)
	}
	if docs := documentsIn(t, env, core.Filter{Type: core.DocTurn}); len(docs) != 0 {
		t.Fatal("bad requests wrote turns")
	}
}

func TestStoreFalseWritesNothing(t *testing.T) {
	ada, llm, env := startChatAda(t, "ollama", nil)
	llm.Script(llmtest.Reply{Tokens: []string{"ok"}})
	var r chatResponse
	if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "secret", "store": false, "save_memory": true}, &r); st != 200 {
		t.Fatal(st)
	}
	if n := len(documentsIn(t, env, core.Filter{Type: core.DocTurn})) + len(documentsIn(t, env, core.Filter{Type: core.DocMemory})); n != 0 {
		t.Fatalf("store=false wrote %d documents", n)
	}
}

func TestDebugEndpointsNeedRAGDebug(t *testing.T) {
	ada, _, _ := startChatAda(t, "ollama", nil)
	if st := ada.call("GET", "/v1/debug/prompt?prompt=hi", nil, nil); st != 404 {
		t.Fatalf("debug prompt without RAG_DEBUG: %d", st)
	}
	ada, llm, _ := startChatAda(t, "ollama", map[string]string{"RAG_DEBUG": "true"})
	ada.call("POST", "/v1/memory", map[string]any{"text": "Sam likes tea"}, nil)
	var dbg struct {
		FinalPrompt string `json:"final_prompt"`
		Sections    []struct{ Name string }
	}
	if st := ada.call("GET", "/v1/debug/prompt?prompt=does+Sam+like+tea", nil, &dbg); st != 200 {
		t.Fatal(st)
	}
	llm.Script(llmtest.Reply{Tokens: []string{"yes"}})
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "does Sam like tea"}, nil)
	sent := llm.ChatRequests()[0].Messages
	var b strings.Builder
	for i, m := range sent {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("[" + m.Role + "]\n" + m.Content)
	}
	// The clock moves between the two calls; compare without the time line.
	strip := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "The current time is") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if strip(dbg.FinalPrompt) != strip(b.String()) {
		t.Fatalf("debug prompt differs from what the model got:\n%s\n----\n%s", dbg.FinalPrompt, b.String())
	}
	var rag map[string]any
	if st := ada.call("GET", "/v1/debug/rag", nil, &rag); st != 200 || rag["store"] == nil {
		t.Fatalf("debug rag: %d %v", st, rag)
	}
}

// TestPromptIsEmbeddedOncePerChat: retrieval embeds the prompt and saving the
// user turn reuses that vector, so a chat costs the embedder two texts (the
// prompt and the answer), not three.
func TestPromptIsEmbeddedOncePerChat(t *testing.T) {
	llm := llmtest.New(t)
	env := testEnv(t, map[string]string{"LLM_BASE_URL": llm.URL(), "LLM_MODEL": "m",
		"EMBED_BACKEND": "ollama", "EMBED_BASE_URL": llm.URL(), "EMBED_MODEL": "e"})
	ada := startAda(t, "serve", env)
	embedded := func() int {
		n := 0
		for _, r := range llm.Requests() {
			n += len(r.Input)
		}
		return n
	}
	before := embedded()
	llm.Script(llmtest.Reply{Tokens: []string{"fine"}})
	if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "how are you"}, nil); st != 200 {
		t.Fatal(st)
	}
	if got := embedded() - before; got != 2 {
		t.Fatalf("one chat embedded %d texts, want 2", got)
	}
	turns := documentsIn(t, env, core.Filter{Type: core.DocTurn})
	if len(turns) != 2 {
		t.Fatalf("turns %d", len(turns))
	}
	for _, d := range turns {
		want := llmtest.Vector(d.Text, core.Dim)
		if vecindex.CosineDistance(d.Embedding, want) > 1e-5 {
			t.Fatalf("turn %q was stored with another text's vector", d.Text)
		}
	}
}
