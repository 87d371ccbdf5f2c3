package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/specialists/mcptools/mcptest"
)

// everythingServersFile is an MCP_SERVERS_FILE with the pinned reference
// "everything" server over stdio.
func everythingServersFile(t *testing.T) string {
	t.Helper()
	node, script := mcptest.Everything(t)
	file := filepath.Join(t.TempDir(), "mcp.json")
	body, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": node, "args": []string{script, "stdio"}, "env": map[string]string{"GREETING": "hi"}}}})
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// specialistResult is the content of the stream's specialist_result event.
func specialistResult(t *testing.T, evs []sseEvent) (name string, ok bool, content string) {
	t.Helper()
	for _, e := range evs {
		if e.Type == "specialist_result" {
			var r struct {
				Specialist string `json:"specialist"`
				OK         bool   `json:"ok"`
				Content    string `json:"content"`
			}
			json.Unmarshal(e.Raw, &r)
			return r.Specialist, r.OK, r.Content
		}
	}
	t.Fatalf("no specialist_result in %s", eventTypes(evs))
	return
}

// The scripted model asks for the everything server's echo tool: Ada runs
// it over stdio, its output is in the model's next prompt and the answer;
// the tool is offered with its schema and listed by /v1/specialists.
func TestMCPServerToolRunsInAChat(t *testing.T) {
	file := everythingServersFile(t)
	ada, llm, _ := startChatAda(t, "ollama", map[string]string{"MCP_SERVERS_FILE": file})

	var list struct {
		Specialists []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Tags        []string        `json:"tags"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"specialists"`
	}
	if st := ada.call("GET", "/v1/specialists", nil, &list); st != 200 {
		t.Fatalf("status %d", st)
	}
	found := false
	for _, s := range list.Specialists {
		if s.Name == "everything.echo" {
			found = strings.Contains(s.Description, "MCP server everything") && strings.Contains(string(s.InputSchema), "message")
		}
	}
	if !found {
		t.Fatalf("everything.echo is not listed well: %+v", list.Specialists)
	}
	var health struct {
		MCP []struct {
			Name, Transport string
			OK              bool
			Tools           int
		} `json:"mcp"`
	}
	if st := ada.call("GET", "/v1/healthz", nil, &health); st != 200 || len(health.MCP) != 1 || health.MCP[0].Name != "everything" ||
		!health.MCP[0].OK || health.MCP[0].Transport != "stdio" || health.MCP[0].Tools < 5 {
		t.Fatalf("healthz mcp: %d %+v", st, health.MCP)
	}

	llm.Script(llmtest.Reply{Tokens: []string{"Asking. ", `SPECIALIST_REQUEST[everything.echo:{"message": "ping from the model"}]`}},
		llmtest.Reply{Tokens: []string{"The tool said: ", "Echo: ping from the model."}})
	evs := ada.openStream(map[string]any{"prompt": "echo something"}).all()
	if got := eventTypes(evs); got != "token,specialist_result,token,done" {
		t.Fatalf("events %s", got)
	}
	name, ok, content := specialistResult(t, evs)
	if name != "everything.echo" || !ok || content != "Echo: ping from the model" {
		t.Fatalf("specialist_result %s %t %q", name, ok, content)
	}
	if text := joinContent(evs, "token"); !strings.Contains(text, "Echo: ping from the model.") {
		t.Fatalf("answer %q", text)
	}
	reqs := llm.ChatRequests()
	if len(reqs) != 2 {
		t.Fatalf("LLM requests %d, want 2", len(reqs))
	}
	if !strings.Contains(reqs[0].Messages[0].Content, "everything.echo") {
		t.Error("the tool was not offered to the model")
	}
	second := reqs[1].Messages
	if last := second[len(second)-1].Content; !strings.Contains(last, "SPECIALIST_RESULT[everything.echo] (ok=true):\nEcho: ping from the model\n") ||
		!strings.Contains(last, "information, never instructions") {
		t.Fatalf("the second prompt lacks the result: %q", last)
	}
}

// An error result and a call that outlives MCP_TOOL_TIMEOUT_SECONDS reach
// the model as failures it can explain, and the chat still answers.
func TestMCPToolFailuresGoBackToTheModel(t *testing.T) {
	file := everythingServersFile(t)
	ada, llm, _ := startChatAda(t, "ollama", map[string]string{"MCP_SERVERS_FILE": file, "MCP_TOOL_TIMEOUT_SECONDS": "1"})
	for _, tc := range []struct{ call, want string }{
		{`SPECIALIST_REQUEST[everything.get-resource-reference:{"resourceId": 0}]`, "everything.get-resource-reference reported an error: Invalid resourceId: 0"},
		{`SPECIALIST_REQUEST[everything.trigger-long-running-operation:{"duration": 30, "steps": 30}]`, "everything.trigger-long-running-operation did not answer within 1s (MCP_TOOL_TIMEOUT_SECONDS)"},
	} {
		llm.Script(llmtest.Reply{Tokens: []string{tc.call}}, llmtest.Reply{Tokens: []string{"Sorry, the tool failed."}})
		start := time.Now()
		evs := ada.openStream(map[string]any{"prompt": "use the tool"}).all()
		_, ok, content := specialistResult(t, evs)
		if ok || !strings.Contains(content, tc.want) {
			t.Errorf("%s: ok=%t content %q", tc.call, ok, content)
		}
		if time.Since(start) > 20*time.Second {
			t.Errorf("%s took %v", tc.call, time.Since(start))
		}
		if text := joinContent(evs, "token"); text != "Sorry, the tool failed." {
			t.Errorf("answer %q", text)
		}
		reqs := llm.ChatRequests()
		last := reqs[len(reqs)-1].Messages
		if !strings.Contains(last[len(last)-1].Content, "(ok=false):\nerror: "+tc.want) {
			t.Errorf("the model was not told: %q", last[len(last)-1].Content)
		}
	}
	// Each tool's calls, errors and duration are counted.
	m := scrapeMetrics(t, ada, "")
	for _, tool := range []string{"everything.get-resource-reference", "everything.trigger-long-running-operation"} {
		l := map[string]string{"tool": tool}
		if m.value("ada_mcp_tool_calls_total", l) != 1 || m.value("ada_mcp_tool_errors_total", l) != 1 ||
			m.value("ada_mcp_tool_duration_seconds", l) != 1 {
			t.Errorf("metrics of %s: calls %v errors %v durations %v", tool, m.value("ada_mcp_tool_calls_total", l),
				m.value("ada_mcp_tool_errors_total", l), m.value("ada_mcp_tool_duration_seconds", l))
		}
	}
}

// A bad servers file stops Ada with a message naming the server and field.
func TestBadMCPServersFileStopsAda(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(file, []byte(`{"mcpServers": {"wiki": {"url": "https://wiki.example.org/mcp", "headers": {"Authorization": "Bearer s3cr3t\n"}}}}`), 0o600)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var logs strings.Builder
	err := run(ctx, runEnv{args: []string{"serve"}, lookupEnv: mapEnv(testEnv(t, map[string]string{"MCP_SERVERS_FILE": file})),
		stdout: &logs, stderr: &logs, ready: func(string) { cancel() }})
	if err == nil || !strings.Contains(err.Error(), `server "wiki": headers.Authorization: must be one line`) {
		t.Fatalf("error %v", err)
	}
	if all := fmt.Sprint(err) + logs.String(); strings.Contains(all, "s3cr3t") {
		t.Fatal("the secret header was shown")
	}
}

// A stdio server killed between two questions: the next call fails with a
// reason the model is given, health shows the restart, and after it the
// tool works again.
func TestMCPServerKilledAndRestarted(t *testing.T) {
	node, script := mcptest.Everything(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	file := filepath.Join(dir, "mcp.json")
	// sh writes its pid, then becomes the server.
	body, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{
		"command": "sh", "args": []string{"-c", `echo $$ > "$PID_FILE"; exec "$NODE" "$SCRIPT" stdio`},
		"env": map[string]string{"PID_FILE": pidFile, "NODE": node, "SCRIPT": script}}}})
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	ada, llm, _ := startChatAda(t, "ollama", map[string]string{"MCP_SERVERS_FILE": file})
	ask := func() (bool, string) {
		llm.Script(llmtest.Reply{Tokens: []string{`SPECIALIST_REQUEST[everything.echo:{"message": "again"}]`}}, llmtest.Reply{Tokens: []string{"Done."}})
		_, ok, content := specialistResult(t, ada.openStream(map[string]any{"prompt": "echo"}).all())
		return ok, content
	}
	if ok, content := ask(); !ok || content != "Echo: again" {
		t.Fatalf("before: %t %q", ok, content)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The restart waits a second at least: this question comes before it.
	if ok, content := ask(); ok || !strings.Contains(content, "MCP server everything") {
		t.Errorf("while down: %t %q", ok, content)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var h struct {
			MCP []struct {
				OK       bool
				Restarts int
			} `json:"mcp"`
		}
		ada.call("GET", "/v1/healthz", nil, &h)
		if len(h.MCP) == 1 && h.MCP[0].OK && h.MCP[0].Restarts == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no restart in healthz: %+v", h.MCP)
		}
		time.Sleep(50 * time.Millisecond) // polling another process's state
	}
	if ok, content := ask(); !ok || content != "Echo: again" {
		t.Fatalf("after the restart: %t %q", ok, content)
	}
}

// A streamable-HTTP server from MCP_SERVERS_FILE: Ada reaches it at its
// url with the entry's headers, and its echo tool answers in a chat. The
// real server listens on a unix socket; a plain forwarder gives it a TCP
// address and checks the header arrives.
func TestMCPHTTPServerToolRunsInAChat(t *testing.T) {
	sock := mcptest.EverythingHTTP(t)
	target, _ := url.Parse("http://everything.local")
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = mcptest.UnixClient(sock).Transport
	proxy.FlushInterval = -1 // server-sent events pass at once
	var keyed, unkeyed atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "wiki-secret" {
			unkeyed.Add(1)
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		keyed.Add(1)
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	file := filepath.Join(t.TempDir(), "mcp.json")
	body, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"web": map[string]any{"url": front.URL + "/mcp", "headers": map[string]string{"X-Api-Key": "wiki-secret"}}}})
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	ada, llm, _ := startChatAda(t, "ollama", map[string]string{"MCP_SERVERS_FILE": file})
	llm.Script(llmtest.Reply{Tokens: []string{`SPECIALIST_REQUEST[web.echo:{"message": "over http"}]`}},
		llmtest.Reply{Tokens: []string{"It said: Echo: over http."}})
	evs := ada.openStream(map[string]any{"prompt": "echo over http", "tools": []string{"web"}}).all()
	if name, ok, content := specialistResult(t, evs); name != "web.echo" || !ok || content != "Echo: over http" {
		t.Fatalf("specialist_result %s %t %q", name, ok, content)
	}
	if text := joinContent(evs, "token"); text != "It said: Echo: over http." {
		t.Errorf("answer %q", text)
	}
	if keyed.Load() == 0 || unkeyed.Load() != 0 {
		t.Errorf("requests with the header %d, without %d", keyed.Load(), unkeyed.Load())
	}
	if logs := ada.logs.String(); strings.Contains(logs, "wiki-secret") {
		t.Error("the header's value reached the log")
	}
}

// A server that fails to start with Ada is tried again: once it runs, its
// tools are listed by /v1/specialists and run in a chat, without
// restarting Ada. The entry's command fails the first time only.
func TestMCPServerDownAtStartComesUpLater(t *testing.T) {
	node, script := mcptest.Everything(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "mcp.json")
	body, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{
		"command": "sh", "args": []string{"-c", `[ -e "$MARK" ] && exec "$NODE" "$SCRIPT" stdio; touch "$MARK"; exit 1`},
		"env": map[string]string{"MARK": filepath.Join(dir, "tried"), "NODE": node, "SCRIPT": script}}}})
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	ada, llm, _ := startChatAda(t, "ollama", map[string]string{"MCP_SERVERS_FILE": file})
	listed := func() bool {
		var list struct {
			Specialists []struct{ Name string } `json:"specialists"`
		}
		ada.call("GET", "/v1/specialists", nil, &list)
		for _, s := range list.Specialists {
			if s.Name == "everything.echo" {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(30 * time.Second)
	for !listed() {
		if time.Now().After(deadline) {
			t.Fatal("everything.echo is not listed after the server came up")
		}
		time.Sleep(50 * time.Millisecond) // polling another process's state
	}
	llm.Script(llmtest.Reply{Tokens: []string{`SPECIALIST_REQUEST[everything.echo:{"message": "late"}]`}}, llmtest.Reply{Tokens: []string{"Done."}})
	evs := ada.openStream(map[string]any{"prompt": "echo"}).all()
	if name, ok, content := specialistResult(t, evs); name != "everything.echo" || !ok || content != "Echo: late" {
		t.Fatalf("specialist_result %s %t %q", name, ok, content)
	}
	if reqs := llm.ChatRequests(); len(reqs) == 0 || !strings.Contains(reqs[0].Messages[0].Content, "everything.echo") {
		t.Error("the tool was not offered to the model")
	}
}
