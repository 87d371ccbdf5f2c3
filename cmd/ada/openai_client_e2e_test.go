package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestOpenAIClient runs the official OpenAI JavaScript client
// (tools/openaiclient, pinned) against the real program: a completion, a
// stream with usage, memories per end user, a front-end that resends the
// history, errors as the client's APIError, the model list.
func TestOpenAIClient(t *testing.T) {
	node, dir := findOpenAIClient(t)
	llm := llmtest.New(t)
	llm.Default(llmtest.Reply{Tokens: []string{"Hello", " from", " Ada."}})
	// With the client's tools: a question calls get_weather, its result
	// gets the answer.
	llm.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		if !strings.Contains(string(r.Body), `"get_weather"`) {
			return llmtest.Reply{}, false
		}
		if r.Messages[len(r.Messages)-1].Role == "tool" {
			return llmtest.Reply{Tokens: []string{"It is sunny", " in Lyon."}}, true
		}
		return llmtest.Reply{ToolCalls: []llmtest.ToolCallReply{{Name: "get_weather", Arguments: `{"city":"Lyon"}`}}}, true
	})
	const key = "test-key-openai-16"
	ada := startAda(t, "serve", testEnv(t, map[string]string{
		"LLM_BASE_URL": llm.URL(), "LLM_MODEL": "tiny", "API_KEY": key, "RAG_AUTO_MEMORY": "false"}))
	for user, text := range map[string]string{"alice": "Alice's locker code is 4417", "bob": "Bob's locker code is 9051"} {
		if st := ada.callWithKey(key, "POST", "/v1/memory", map[string]any{"text": text, "entity": user}, nil); st != 201 {
			t.Fatalf("memory for %s: %d", user, st)
		}
	}

	cmd := exec.Command(node, "check.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ADA_URL="+ada.URL, "ADA_KEY="+key)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outp, err := cmd.Output()
	if err != nil {
		t.Fatalf("the OpenAI client: %v\n%s\n%s", err, outp, stderr.String())
	}
	t.Logf("the client said:\n%s", outp)
	checks := map[string][]map[string]any{}
	sc := bufio.NewScanner(bytes.NewReader(outp))
	for sc.Scan() {
		var c map[string]any
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("client output %q: %v", sc.Text(), err)
		}
		checks[c["check"].(string)] = append(checks[c["check"].(string)], c)
	}
	one := func(name string) map[string]any {
		if len(checks[name]) != 1 {
			t.Fatalf("check %s: %v", name, checks[name])
		}
		return checks[name][0]
	}

	for _, name := range []string{"plain", "stream"} {
		c := one(name)
		if c["content"] != "Hello from Ada." || c["role"] != "assistant" || c["finish"] != "stop" {
			t.Errorf("%s: %v", name, c)
		}
		u, _ := c["usage"].(map[string]any)
		if u == nil || u["completion_tokens"] != 3.0 || u["prompt_tokens"].(float64) < 10 ||
			u["total_tokens"] != u["prompt_tokens"].(float64)+3 {
			t.Errorf("%s: usage %v, want the backend's counts", name, c["usage"])
		}
	}

	// Each user's prompt held their own memory and not the other's.
	for user, want := range map[string][2]string{"alice": {"4417", "9051"}, "bob": {"9051", "4417"}} {
		sys := systemPromptFor(t, llm, "(asked by "+user+")")
		if !strings.Contains(sys, want[0]) || strings.Contains(sys, want[1]) {
			t.Errorf("%s's prompt: has own memory %v, has the other's %v", user, strings.Contains(sys, want[0]), strings.Contains(sys, want[1]))
		}
	}

	// The resent history continued one conversation, stored once.
	h := one("history")
	conv, _ := h["first"].(string)
	if conv == "" || h["second"] != conv || h["ada"].(map[string]any)["conversation_id"] != conv {
		t.Fatalf("history: %v", h)
	}
	var turns storedTurns
	ada.callWithKey(key, "GET", "/v1/conversations/"+conv, nil, &turns)
	if len(turns.Turns) != 4 {
		t.Errorf("conversation %s holds %d turns, want 4: %+v", conv, len(turns.Turns), turns.Turns)
	}
	sys := systemPromptFor(t, llm, "What should I plant beside them?")
	if !strings.Contains(sys, "Answer like a gardener.") || !strings.Contains(sys, "## Persona") {
		t.Errorf("the client's system message is not beside the persona:\n%s", sys)
	}

	// The tools round trip, as JSON and streamed; the exchange is stored
	// once, with its final answer.
	tc := one("tools")
	if tc["finish"] != "tool_calls" || tc["content"] != nil || tc["name"] != "get_weather" || tc["args"] != `{"city":"Lyon"}` || tc["id"] == "" ||
		tc["final"] != "It is sunny in Lyon." || tc["streamFinish"] != "tool_calls" ||
		toJSON(tc["streamed"]) != `[{"arguments":"{\"city\":\"Lyon\"}","id":"call_0","name":"get_weather"}]` {
		t.Errorf("tools: %v", tc)
	}
	// (Ollama, this test's backend, names the tool a result answers, not
	// the call's id.)
	if sent := lastCallWith(t, llm, "sunny, 21°C"); sent == nil || sent[len(sent)-1].Role != "tool" || sent[len(sent)-1].ToolCallID != "get_weather" ||
		len(sent[len(sent)-2].ToolCalls) != 1 || sent[len(sent)-2].ToolCalls[0].Function.Arguments != `{"city":"Lyon"}` {
		t.Errorf("the model did not get the tool's result after its call: %+v", sent)
	}
	var toolTurns storedTurns
	ada.callWithKey(key, "GET", "/v1/conversations/"+tc["conversation"].(string), nil, &toolTurns)
	if len(toolTurns.Turns) != 2 || toolTurns.Turns[1].Content != "It is sunny in Lyon." {
		t.Errorf("the tools exchange was stored as %+v, want the question and the final answer", toolTurns.Turns)
	}

	errs := map[string]map[string]any{}
	for _, c := range checks["error"] {
		errs[c["name"].(string)] = c
	}
	if c := errs["no messages"]; c["status"] != 400.0 || c["type"] != "invalid_request_error" || c["param"] != "messages" {
		t.Errorf("no messages: %v", c)
	}
	if c := errs["unknown model"]; c["status"] != 404.0 || c["param"] != "model" {
		t.Errorf("unknown model: %v", c)
	}
	if m := one("models")["models"]; toJSON(m) != `["ada","tiny"]` {
		t.Errorf("models: %v", m)
	}

	// Open WebUI's forwarded headers: the user header names the end user
	// (alice's memory, not bob's, though the body says bob), the session
	// header the conversation, whatever the first messages.
	convs := map[string]bool{}
	for _, first := range []string{"What is my locker code? (headers, first)", "Tell me my locker code (headers, second)"} {
		body := toJSON(map[string]any{"model": "ada", "user": "bob", "messages": []map[string]string{{"role": "user", "content": first}}})
		req, _ := http.NewRequest("POST", ada.URL+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-OpenWebUI-User-Id", "alice")
		req.Header.Set("X-OpenWebUI-Chat-Id", "chat-42")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("completion with Open WebUI's headers: %v %v", resp, err)
		}
		resp.Body.Close()
		convs[resp.Header.Get("X-Ada-Conversation-Id")] = true
		if sys := systemPromptFor(t, llm, first); !strings.Contains(sys, "4417") || strings.Contains(sys, "9051") {
			t.Errorf("the user header did not choose alice's memories:\n%s", sys)
		}
	}
	if len(convs) != 1 {
		t.Errorf("one chat id gave conversations %v, want one", convs)
	}

	// A wrong key gets OpenAI's error shape.
	var e struct {
		Error struct{ Message, Type string } `json:"error"`
	}
	if st := ada.callWithKey("wrong", "POST", "/v1/chat/completions", map[string]any{"model": "ada"}, &e); st != 401 || e.Error.Type != "authentication_error" {
		t.Errorf("wrong key: %d %+v", st, e)
	}
}

// systemPromptFor is the system message of the model call whose last
// message holds marker.
func systemPromptFor(t *testing.T, llm *llmtest.Server, marker string) string {
	t.Helper()
	for _, r := range llm.ChatRequests() {
		if n := len(r.Messages); n > 1 && strings.Contains(r.Messages[n-1].Content, marker) && r.Messages[0].Role == "system" {
			return r.Messages[0].Content
		}
	}
	t.Fatalf("no model call for %q", marker)
	return ""
}

// storedTurns is GET /v1/conversations/{id}'s body, as far as these tests read it.
type storedTurns struct {
	Turns []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"turns"`
}

// lastCallWith is the messages of the last model call whose last message
// holds marker.
func lastCallWith(t *testing.T, llm *llmtest.Server, marker string) []core.Message {
	t.Helper()
	var found []core.Message
	for _, r := range llm.ChatRequests() {
		if n := len(r.Messages); n > 0 && strings.Contains(r.Messages[n-1].Content, marker) {
			found = r.Messages
		}
	}
	return found
}

// findOpenAIClient returns node and the client's directory with its
// packages installed (make deps installs them), or skips without them
// (fails under CI=true).
func findOpenAIClient(t *testing.T) (node, dir string) {
	t.Helper()
	dir, _ = filepath.Abs(filepath.Join("..", "..", "tools", "openaiclient"))
	node, err := exec.LookPath("node")
	if err == nil {
		if _, err = os.Stat(filepath.Join(dir, "node_modules", "openai", "package.json")); err == nil {
			return node, dir
		}
	}
	msg := "node or the OpenAI client is missing (`make deps` runs npm ci in tools/openaiclient): " + err.Error()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return "", ""
}
