package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/storage/storagetest"
)

// Issue 36 items 1, 2 and 5 (DECISIONS.md, "Identities, walls and
// forgetting"): the end users a front-end names live apart from each
// other, from anonymous people and from Matrix rooms and members.

// identityLLM answers chats with "Noted." and every extraction with a fact
// quoting the exchange's secret (a word starting with "secret-"), so an
// automatic memory, when one is stored, is easy to find.
func identityLLM(t *testing.T) *llmtest.Server {
	llm := llmtest.New(t)
	llm.Default(llmtest.Reply{Tokens: []string{"Noted."}})
	llm.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		if r.Format == nil {
			return llmtest.Reply{}, false
		}
		last := r.Messages[len(r.Messages)-1].Content
		i := strings.Index(last, "secret-")
		if i < 0 {
			return factsReply(), true
		}
		word := strings.Fields(last[i:])[0]
		return factsReply(`{"text":"The code word is ` + word + `","importance":4,"replaces":[]}`), true
	})
	return llm
}

// complete posts a completion with the given headers and returns the
// status, the body and the conversation Ada answered in.
func complete(t *testing.T, ada *adaProc, headers map[string]string, body map[string]any) (int, []byte, string) {
	t.Helper()
	body["model"] = "ada"
	req, _ := http.NewRequest("POST", ada.URL+"/v1/chat/completions", strings.NewReader(toJSON(body)))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var data json.RawMessage
	_ = json.NewDecoder(resp.Body).Decode(&data)
	return resp.StatusCode, data, resp.Header.Get("X-Ada-Conversation-Id")
}

func userSays(texts ...string) []map[string]string {
	var msgs []map[string]string
	for i, text := range texts {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, map[string]string{"role": role, "content": text})
	}
	return msgs
}

// Two anonymous people who open a chat with the same words do not share a
// conversation, and what they say becomes no memory anyone reads: without
// an identity Ada extracts nothing, and continues a conversation only by
// the front-end's session header.
func TestOpenAIAnonymousChatsShareNothing(t *testing.T) {
	llm := identityLLM(t)
	ada := startAda(t, "serve", testEnv(t, map[string]string{"LLM_BASE_URL": llm.URL(), "LLM_MODEL": llmtest.ModelName}))

	st, _, first := complete(t, ada, nil, map[string]any{"messages": userSays("Hello Ada")})
	if st != 200 {
		t.Fatalf("anonymous completion: %d", st)
	}
	st, _, second := complete(t, ada, nil, map[string]any{"messages": userSays("Hello Ada", "Noted.", "My PIN is secret-8842")})
	if st != 200 {
		t.Fatalf("anonymous completion: %d", st)
	}
	ada.settle()
	_, _, other := complete(t, ada, nil, map[string]any{"messages": userSays("Hello Ada", "Noted.", "What is my PIN? (the other person)")})
	if first == second || second == other || first == other {
		t.Errorf("anonymous requests continued a conversation from their content: %s, %s, %s", first, second, other)
	}
	if sys := strings.Join(messagesOf(lastCallWith(t, llm, "(the other person)")), "\n"); strings.Contains(sys, "8842") {
		t.Errorf("another anonymous person's prompt holds the PIN:\n%s", sys)
	}
	if mems := listMemories(t, ada, ""); len(mems) != 0 {
		t.Errorf("anonymous chats stored memories: %+v", mems)
	}
	// An identified user reads no trace of it either.
	complete(t, ada, nil, map[string]any{"user": "carol", "messages": userSays("What is the code word? (carol)")})
	if sys := systemPromptFor(t, llm, "(carol)"); strings.Contains(sys, "8842") {
		t.Errorf("carol's prompt holds the anonymous PIN:\n%s", sys)
	}

	// A session header continues an anonymous conversation.
	session := map[string]string{"X-Session-Id": "9f0c1d2e-session"}
	_, _, a := complete(t, ada, session, map[string]any{"messages": userSays("Hi (session)")})
	_, _, b := complete(t, ada, session, map[string]any{"messages": userSays("Hi (session)", "Noted.", "And again (session)")})
	if a != b || !core.ValidConversationID(a) {
		t.Errorf("the session header did not name one conversation: %s, %s", a, b)
	}
}

// messagesOf is the contents of a model call's messages.
func messagesOf(msgs []core.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Content)
	}
	return out
}

// An identified user's conversation id is derived from their first
// messages with a key of this DATA_DIR: stable across restarts, but another
// instance (another key) cannot compute it.
func TestOpenAIConversationIDsAreKeyed(t *testing.T) {
	llm := identityLLM(t)
	dir := t.TempDir()
	env := testEnv(t, map[string]string{"LLM_BASE_URL": llm.URL(), "LLM_MODEL": llmtest.ModelName, "DATA_DIR": dir})
	convOf := func(ada *adaProc) string {
		st, _, conv := complete(t, ada, nil, map[string]any{"user": "dana", "messages": userSays("Good morning")})
		if st != 200 || !core.ValidConversationID(conv) {
			t.Fatalf("completion: %d, conversation %q", st, conv)
		}
		return conv
	}
	ada := startAda(t, "serve", env)
	first := convOf(ada)
	if again := convOf(ada); again != first {
		t.Errorf("the same opening gave conversations %s and %s", first, again)
	}
	ada.stop()
	info, err := os.Stat(filepath.Join(dir, "secret.key"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("DATA_DIR/secret.key: %v, %v; want a file of mode 0600", info, err)
	}
	if restarted := convOf(startAda(t, "serve", env)); restarted != first {
		t.Errorf("after a restart the same opening gave %s, not %s", restarted, first)
	}
	if elsewhere := convOf(startAda(t, "serve", testEnv(t, map[string]string{"LLM_BASE_URL": llm.URL(), "LLM_MODEL": llmtest.ModelName}))); elsewhere == first {
		t.Errorf("another DATA_DIR's key gave the same conversation %s", first)
	}
}

// End users named by a front-end are never shaped like Matrix ids: such an
// id is refused, naming the field, and nothing lands in the room's or the
// member's scope.
func TestFrontEndUsersAreNotMatrixIDs(t *testing.T) {
	llm := identityLLM(t)
	ada := startAda(t, "serve", testEnv(t, map[string]string{"LLM_BASE_URL": llm.URL(), "LLM_MODEL": llmtest.ModelName}))
	const room, member = "!room:server", "@member:server"
	for _, c := range []struct {
		name, field string
		headers     map[string]string
		body        map[string]any
	}{
		{"user a room", "user", nil, map[string]any{"user": room}},
		{"user a member", "user", nil, map[string]any{"user": member}},
		{"user an alias", "user", nil, map[string]any{"user": "#lobby:server"}},
		{"header a member", "X-OpenWebUI-User-Id", map[string]string{"X-OpenWebUI-User-Id": member}, map[string]any{"user": "kim"}},
		{"header a room", "X-OpenWebUI-User-Id", map[string]string{"X-OpenWebUI-User-Id": room}, map[string]any{}},
	} {
		c.body["messages"] = userSays("Remember secret-" + strings.ReplaceAll(c.name, " ", "-"))
		for _, stream := range []bool{false, true} {
			c.body["stream"] = stream
			st, data, _ := complete(t, ada, c.headers, c.body)
			var e struct {
				Error struct{ Message, Type string } `json:"error"`
			}
			_ = json.Unmarshal(data, &e)
			if st != 400 || e.Error.Type != "invalid_request_error" || !strings.HasPrefix(e.Error.Message, c.field+":") ||
				!strings.Contains(e.Error.Message, "Matrix") {
				t.Errorf("%s (stream %v): %d %s, want 400 naming %s and why", c.name, stream, st, data, c.field)
			}
		}
	}
	// MCP: a client whose X-Ada-Entity is a Matrix id gets the call's error.
	body := toJSON(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "add_memory", "arguments": map[string]any{"text": "secret-mcp is the door code"}}})
	req, _ := http.NewRequest("POST", ada.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("X-Ada-Entity", room)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var rpc struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct{ Text string }
		}
	}
	_ = json.NewDecoder(resp.Body).Decode(&rpc)
	resp.Body.Close()
	if !rpc.Result.IsError || len(rpc.Result.Content) == 0 || !strings.Contains(rpc.Result.Content[0].Text, "X-Ada-Entity") ||
		!strings.Contains(rpc.Result.Content[0].Text, "Matrix") {
		t.Errorf("MCP with X-Ada-Entity %s: %+v, want a tool error naming the header", room, rpc)
	}

	ada.settle()
	for _, scope := range []string{room, member} {
		if mems := listMemories(t, ada, "entity="+scope); len(mems) != 0 {
			t.Errorf("memories reached %s's scope: %+v", scope, mems)
		}
	}
	var convs struct {
		Items []json.RawMessage `json:"items"`
	}
	ada.call("GET", "/v1/conversations", nil, &convs)
	if len(convs.Items) != 0 {
		t.Errorf("refused requests stored conversations: %s", convs.Items)
	}
}

// The other direction: what the OpenAI user alice says, and what Ada
// learns from it, reaches neither a room's chat prompt nor the page of the
// member @alice:server.
func TestOpenAIUserStaysOutOfRoomsAndMembers(t *testing.T) {
	llm := identityLLM(t)
	ada := startAda(t, "serve", testEnv(t, map[string]string{"LLM_BASE_URL": llm.URL(), "LLM_MODEL": llmtest.ModelName}))
	st, _, conv := complete(t, ada, nil, map[string]any{"user": "alice", "messages": userSays("My locker code is secret-4417")})
	if st != 200 {
		t.Fatalf("alice's completion: %d", st)
	}
	ada.settle()
	if mems := listMemories(t, ada, "entity=alice"); len(mems) != 1 {
		t.Fatalf("alice's memories: %+v, want the extracted one", mems)
	}
	ctx := context.Background()
	const room, member = "!room:server", "@alice:server"
	p, err := ada.svc.DebugPrompt(ctx, core.ChatRequest{Prompt: "What is the locker code secret-4417?", Entity: room, RoomID: room,
		ConversationID: core.NewConversationID(), Speaker: &core.Speaker{Name: "alice", UserID: member}})
	if err != nil {
		t.Fatal(err)
	}
	if text := toJSON(p); strings.Contains(text, "My locker code") || strings.Contains(text, "The code word is") {
		t.Errorf("the room's prompt holds alice's words:\n%s", text)
	}
	view := &core.Visibility{UserID: member, Rooms: []string{room}}
	page, err := ada.svc.BrowseMemories(ctx, core.Browse{Visible: view, Limit: 100})
	if err != nil || len(page.Items) != 0 || page.Total != 0 {
		t.Errorf("@alice:server's page lists %+v (%v)", page, err)
	}
	export, err := ada.svc.ExportMember(ctx, member)
	if err != nil || len(export.Memories) != 0 || len(export.Turns) != 0 {
		t.Errorf("@alice:server's export holds %+v (%v)", export, err)
	}
	convs, err := ada.svc.RoomConversations(ctx, view.Rooms)
	if err != nil || len(convs) != 0 {
		t.Errorf("the room's conversations on the page: %+v (%v), want none (alice's is %s)", convs, err, conv)
	}
}

// Forgetting an OpenAI user takes their conversations with them, on
// either store.
func TestForgettingOpenAIUserDeletesTheirTurns(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { forgetOpenAIUser(t, nil) })
	t.Run("chroma", func(t *testing.T) {
		forgetOpenAIUser(t, map[string]string{"VECTORDB_URL": storagetest.StartChroma(t).URL})
	})
}

func forgetOpenAIUser(t *testing.T, extra map[string]string) {
	llm := identityLLM(t)
	env := map[string]string{"LLM_BASE_URL": llm.URL(), "LLM_MODEL": llmtest.ModelName}
	for k, v := range extra {
		env[k] = v
	}
	ada := startAda(t, "serve", testEnv(t, env))
	_, _, conv := complete(t, ada, nil, map[string]any{"user": "alice", "messages": userSays("My bike is secret-teal")})
	_, _, again := complete(t, ada, nil, map[string]any{"user": "alice", "messages": userSays("My bike is secret-teal", "Noted.", "And my car is grey")})
	_, _, bobs := complete(t, ada, nil, map[string]any{"user": "bob", "messages": userSays("My bike is blue")})
	if conv != again || conv == bobs {
		t.Fatalf("conversations: alice %s and %s, bob %s", conv, again, bobs)
	}
	ada.settle()
	var turns storedTurns
	if st := ada.call("GET", "/v1/conversations/"+conv, nil, &turns); st != 200 || len(turns.Turns) != 4 {
		t.Fatalf("alice's conversation before: %d %+v", st, turns)
	}
	var res core.ForgetResult
	if st := ada.call("DELETE", "/v1/memory?entity=alice", nil, &res); st != 200 || res.Turns != 4 || res.Memories < 1 {
		t.Errorf("forgetting alice: %d %+v, want her 4 turns and her memory", st, res)
	}
	if st := ada.call("GET", "/v1/conversations/"+conv, nil, nil); st != 404 {
		t.Errorf("alice's conversation after she was forgotten: %d, want 404", st)
	}
	for _, text := range storedTurnTexts(t, ada) {
		if strings.Contains(text, "teal") || strings.Contains(text, "grey") {
			t.Errorf("a turn of alice's survived: %q", text)
		}
	}
	if st := ada.call("GET", "/v1/conversations/"+bobs, nil, &turns); st != 200 || len(turns.Turns) != 2 {
		t.Errorf("bob's conversation: %d %+v, want it untouched", st, turns)
	}
}

// storedTurnTexts is the text of every turn the running program holds.
func storedTurnTexts(t *testing.T, ada *adaProc) []string {
	t.Helper()
	ctx := context.Background()
	convs, err := ada.svc.RecentConversations(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range convs {
		turns, err := ada.svc.ConversationTurns(ctx, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range turns {
			out = append(out, tr.Content)
		}
	}
	return out
}
