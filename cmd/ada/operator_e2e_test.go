package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// The tests of the operator's first hour: what a new operator meets when
// starting, misconfiguring and stopping the real program.

// runArgs runs the real program with args to its end, or for at most 10 s
// (a command that wrongly starts a server is stopped then).
func runArgs(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := run(ctx, runEnv{args: args, lookupEnv: mapEnv(env), stdout: &out, stderr: io.Discard})
	return out.String(), err
}

// logLines returns the log lines that contain every one of parts.
func logLines(ada *adaProc, parts ...string) []string {
	var out []string
	for _, l := range strings.Split(ada.logs.String(), "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			out = append(out, l)
		}
	}
	return out
}

func TestEveryCommandAnswersHelpWithoutStarting(t *testing.T) {
	for _, cmd := range []string{"up", "serve", "bot", "migrate", "reindex", "export", "import", "version"} {
		for _, flag := range []string{"--help", "-h"} {
			dir := filepath.Join(t.TempDir(), "data")
			out, err := runArgs(t, testEnv(t, map[string]string{"DATA_DIR": dir}), cmd, flag)
			if err != nil || !strings.Contains(out, "usage: ada "+cmd) {
				t.Errorf("ada %s %s: %v, printed %q; want its usage and success", cmd, flag, err, out)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("ada %s %s touched DATA_DIR", cmd, flag)
			}
		}
	}
	for args, want := range map[string]string{"serve --port=7001": "-port", "migrate now": `"now"`, "reindex -x": "-x"} {
		dir := filepath.Join(t.TempDir(), "data")
		_, err := runArgs(t, testEnv(t, map[string]string{"DATA_DIR": dir}), strings.Fields(args)...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ada %s: %v, want an error naming %s", args, err, want)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("ada %s touched DATA_DIR", args)
		}
	}
}

// TestSecondWriterIsRefused: one DATA_DIR, one writer; the second names the
// first's pid and the directory, and the lock goes with the first.
func TestSecondWriterIsRefused(t *testing.T) {
	env := testEnv(t, nil)
	ada := startAda(t, "serve", env)
	for _, cmd := range []string{"serve", "up", "migrate", "reindex"} {
		_, err := runArgs(t, env, cmd)
		if err == nil || !strings.Contains(err.Error(), "DATA_DIR="+env["DATA_DIR"]) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
			t.Errorf("ada %s beside a running server: %v, want a refusal naming DATA_DIR and the pid", cmd, err)
		}
	}
	ada.stop()
	if out, err := runArgs(t, env, "migrate"); err != nil {
		t.Fatalf("migrate after the server stopped: %v\n%s", err, out)
	}
}

func TestMalformedEnvFileNamesTheLineNotTheValue(t *testing.T) {
	const secret = "S3cr3t-Passw0rd"
	file := filepath.Join(t.TempDir(), "ada.env")
	body := "# settings\nLOG_LEVEL=INFO\nMATRIX_PASSWORD=\"" + secret + "\nAI_NAME=Ada\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := runArgs(t, testEnv(t, map[string]string{"ADA_ENV_FILE": file}), "migrate")
	if err == nil || strings.Contains(err.Error(), secret) {
		t.Fatalf("err = %v: want an error without the value", err)
	}
	for _, want := range []string{file, "line 3", "MATRIX_PASSWORD", "closing quote"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %q", err, want)
		}
	}
}

// TestEmptyVariableOverridesEnvFile: API_KEY= in the environment turns off
// the key the file sets.
func TestEmptyVariableOverridesEnvFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ada.env")
	if err := os.WriteFile(file, []byte("API_KEY=from-the-file-0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	withFile := startAda(t, "serve", testEnv(t, map[string]string{"ADA_ENV_FILE": file}))
	if st := withFile.call("GET", "/v1/info", nil, nil); st != 401 {
		t.Fatalf("the file's API_KEY is not used: %d", st)
	}
	overridden := startAda(t, "serve", testEnv(t, map[string]string{"ADA_ENV_FILE": file, "API_KEY": ""}))
	if st := overridden.call("GET", "/v1/info", nil, nil); st != 200 {
		t.Fatalf("API_KEY set to empty in the environment must win over the file: %d", st)
	}
}

func TestDataDirProblemsNameTheCause(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(file, "data")
	_, err := runArgs(t, testEnv(t, map[string]string{"DATA_DIR": dir}), "serve")
	if err == nil || !strings.Contains(err.Error(), "DATA_DIR="+dir) || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("DATA_DIR below a file: %v", err)
	}

	if os.Geteuid() == 0 {
		t.Skip("root writes whatever the permission bits say; the permission cases need another user")
	}
	dir = filepath.Join(t.TempDir(), "locked")
	if err := os.Mkdir(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	_, err = runArgs(t, testEnv(t, map[string]string{"DATA_DIR": dir}), "serve")
	if err == nil || !strings.Contains(err.Error(), "DATA_DIR="+dir) || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("unwritable DATA_DIR: %v", err)
	}

	env := testEnv(t, nil)
	if _, err := runArgs(t, env, "migrate"); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(env["DATA_DIR"], "ada.db")
	if err := os.Chmod(db, 0o400); err != nil {
		t.Fatal(err)
	}
	_, err = runArgs(t, env, "serve")
	if err == nil || !strings.Contains(err.Error(), db) || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("read-only database: %v", err)
	}
}

// TestHealthSaysWhenTheModelIsMissing: the LLM answers, the model is not
// there; health and the start-up line say so, with the fix.
func TestHealthSaysWhenTheModelIsMissing(t *testing.T) {
	for backend, fix := range map[string]string{"ollama": "ollama pull qwen3:8b", "openai": "LLM_MODEL"} {
		ada, _, _ := startChatAda(t, backend, map[string]string{"LLM_MODEL": "qwen3:8b"})
		var h struct {
			LLM struct {
				OK    bool    `json:"ok"`
				Error *string `json:"error"`
			} `json:"llm"`
		}
		ada.call("GET", "/v1/healthz", nil, &h)
		if h.LLM.OK || h.LLM.Error == nil || !strings.Contains(*h.LLM.Error, "qwen3:8b") || !strings.Contains(*h.LLM.Error, fix) {
			t.Errorf("%s: health llm = %+v, want not ok, naming the model and %q", backend, h.LLM, fix)
		}
		waitFor(t, "the start-up line", func() bool { return len(logLines(ada, "the LLM is not ready")) == 1 })
		if l := logLines(ada, "the LLM is not ready")[0]; !strings.Contains(l, "level=WARN") || !strings.Contains(l, fix) {
			t.Errorf("%s: start-up line %q", backend, l)
		}
	}
	ada, _, _ := startChatAda(t, "ollama", nil)
	waitFor(t, "the start-up line", func() bool { return len(logLines(ada, "level=INFO", "the LLM answers and has the model")) == 1 })
}

// TestTimeoutIs504: REQUEST_TIMEOUT_SECONDS gives the 504 the OpenAPI
// document promises.
func TestTimeoutIs504(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", map[string]string{"REQUEST_TIMEOUT_SECONDS": "1"})
	llm.Script(llmtest.Reply{Hang: true})
	var d detail
	if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "slow"}, &d); st != 504 || !strings.Contains(d.Detail, "REQUEST_TIMEOUT_SECONDS") {
		t.Fatalf("%d %q, want 504 naming REQUEST_TIMEOUT_SECONDS", st, d.Detail)
	}
}

// TestShutdownAnswers503: chats running at SIGTERM end with 503 "Ada is
// shutting down" and Retry-After (a stream with that error event), logged as
// a warning that does not blame the LLM.
func TestShutdownAnswers503(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", nil)
	llm.Default(llmtest.Reply{Hang: true})
	type answer struct {
		status int
		retry  string
		body   string
	}
	answers := make(chan answer, 2)
	for _, path := range []string{"/v1/chat", "/v1/chat/stream"} {
		go func() {
			resp, err := http.Post(ada.URL+path, "application/json", strings.NewReader(`{"prompt": "still there?"}`))
			if err != nil {
				answers <- answer{body: err.Error()}
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			answers <- answer{resp.StatusCode, resp.Header.Get("Retry-After"), string(body)}
		}()
	}
	waitFor(t, "both chats at the LLM", func() bool { return len(llm.ChatRequests()) == 2 })
	ada.stop()
	for range 2 {
		a := <-answers
		switch {
		case a.status == 503:
			var d detail
			if err := json.Unmarshal([]byte(a.body), &d); err != nil || d.Detail != "Ada is shutting down; retry in a moment" || a.retry == "" {
				t.Errorf("503 %q, Retry-After %q", a.body, a.retry)
			}
		case a.status == 200:
			if !strings.Contains(a.body, `"error":"Ada is shutting down`) {
				t.Errorf("the stream ended with %q", a.body)
			}
		default:
			t.Errorf("answer %+v", a)
		}
	}
	lines := logLines(ada, "path=/v1/chat ")
	if len(lines) != 1 || !strings.Contains(lines[0], "level=WARN") || !strings.Contains(lines[0], "status=503") || strings.Contains(lines[0], "LLM") {
		t.Errorf("log of the interrupted chat: %q", lines)
	}
}

// TestIncludeThinkingWithAModelThatCannotThink: the answer comes without
// thinking and says so; the log says it once.
func TestIncludeThinkingWithAModelThatCannotThink(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", nil)
	llm.Default(llmtest.Reply{Tokens: []string{"Paris."}})
	llm.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		if r.Think != nil && *r.Think {
			return llmtest.Reply{Status: 400, Error: strconv.Quote(r.Model) + " does not support thinking"}, true
		}
		return llmtest.Reply{}, false
	})
	var r struct {
		Response string  `json:"response"`
		Thinking *string `json:"thinking"`
		Note     string  `json:"note"`
	}
	if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "Capital of France?", "include_thinking": true}, &r); st != 200 ||
		r.Response != "Paris." || r.Thinking != nil || !strings.Contains(r.Note, "cannot think") {
		t.Fatalf("%d %+v", st, r)
	}
	evs := ada.openStream(map[string]any{"prompt": "And of Italy?", "include_thinking": true}).all()
	if eventTypes(evs) != "token,done" || !strings.Contains(string(evs[len(evs)-1].Raw), "cannot think") {
		t.Fatalf("stream %s", eventTypes(evs))
	}
	if n := len(logLines(ada, "level=WARN", "the model cannot think")); n != 1 {
		t.Errorf("%d log lines about thinking, want 1", n)
	}
}

// TestDeleteConversation: the turns and summaries go; an automatic memory
// drawn only from them goes too, with the reason in its history; a memory
// saved on purpose stays.
func TestDeleteConversation(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", nil)
	llm.Default(llmtest.Reply{Tokens: []string{"Noted."}})
	conv := core.NewConversationID()
	llm.ScriptFormatted(factsReply(`{"text": "Sam keeps bees", "importance": 3, "replaces": []}`))
	if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "I keep bees", "conversation_id": conv}, nil); st != 200 {
		t.Fatal(st)
	}
	waitFor(t, "the automatic memory", func() bool { return len(listMemories(t, ada, "tag=auto")) == 1 })
	auto := listMemories(t, ada, "tag=auto")[0]
	var saved memoryRecord
	if st := ada.call("POST", "/v1/memory", map[string]any{"text": "Sam's hives are on the roof", "conversation_id": conv}, &saved); st != 201 {
		t.Fatal(st)
	}

	var del struct {
		OK             bool   `json:"ok"`
		ConversationID string `json:"conversation_id"`
		Deleted        int    `json:"deleted"`
	}
	if st := ada.call("DELETE", "/v1/conversations/"+conv, nil, &del); st != 200 || !del.OK || del.ConversationID != conv || del.Deleted != 2 {
		t.Fatalf("%d %+v", st, del)
	}
	if st := ada.call("GET", "/v1/conversations/"+conv, nil, nil); st != 404 {
		t.Errorf("the conversation is still there: %d", st)
	}
	if st := ada.call("DELETE", "/v1/conversations/"+conv, nil, nil); st != 404 {
		t.Errorf("deleting again: %d, want 404", st)
	}
	if st := ada.call("GET", "/v1/memory/"+auto.ID, nil, nil); st != 404 {
		t.Errorf("the automatic memory of the deleted turns is still there: %d", st)
	}
	var hist struct {
		Items []struct{ Event, Reason string } `json:"items"`
	}
	ada.call("GET", "/v1/memory/"+auto.ID+"/history", nil, &hist)
	if n := len(hist.Items); n == 0 || hist.Items[n-1].Event != core.HistoryDelete || hist.Items[n-1].Reason == "" {
		t.Errorf("history of the automatic memory: %+v", hist.Items)
	}
	if st := ada.call("GET", "/v1/memory/"+saved.ID, nil, nil); st != 200 {
		t.Errorf("the memory saved on purpose went with the conversation: %d", st)
	}
}
