package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// mcpToolCall calls one tool over /mcp as a client scoped to entity (""
// for the operator's unscoped client) and returns the tool's text and
// whether it is a tool error.
func mcpToolCall(t *testing.T, base, entity, tool string, args map[string]any) (string, bool) {
	t.Helper()
	resp := mcpPostAs(t, base, entity, "tools/call", map[string]any{"name": tool, "arguments": args})
	defer resp.Body.Close()
	var rpc struct {
		Result struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&rpc); err != nil || resp.StatusCode != 200 || len(rpc.Result.Content) == 0 {
		t.Fatalf("%s as %q: status %d, %v, %+v", tool, entity, resp.StatusCode, err, rpc)
	}
	return rpc.Result.Content[0].Text, rpc.Result.IsError
}

// A client scoped to a front-end user (X-Ada-Entity) recalls only that
// user's conversations: another user's, an anonymous one and a Matrix
// room's answer exactly as an unknown id does, so not even their existence
// shows. The operator's unscoped client still recalls any of them.
func TestMCPRecallConversationKeepsFrontEndUsersApart(t *testing.T) {
	ada, llm, env := startChatAda(t, "ollama", nil)
	llm.Script(llmtest.Reply{Tokens: []string{"Noted"}}, llmtest.Reply{Tokens: []string{"Noted"}},
		llmtest.Reply{Tokens: []string{"Noted"}}, llmtest.Reply{Tokens: []string{"Noted"}})
	chat := func(entity, prompt string) string {
		var r chatResponse
		if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": prompt, "entity": entity, "auto_memory": false}, &r); st != 200 {
			t.Fatalf("chat as %q: status %d", entity, st)
		}
		return r.ConversationID
	}
	alices, bobs := chat("alice", "My locker code is 4711"), chat("bob", "My locker code is 9182")
	anonymous := chat("", "My locker code is 5555")
	const room = "!lockers:example.org"
	off := false
	res, err := ada.svc.Chat(context.Background(), core.ChatRequest{Prompt: "The room's locker code is 3030", Entity: room, RoomID: room,
		Store: true, AutoMemory: &off, Speaker: &core.Speaker{Name: "Carol", UserID: "@carol:example.org"}},
		func(core.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	ada.settle()
	const unknown = "conv-00000000-0000-4000-8000-000000000000"

	recall := func(entity, conv string) (string, bool) {
		return mcpToolCall(t, ada.URL, entity, "recall_conversation", map[string]any{"conversation_id": conv, "query": "locker code"})
	}
	if text, isError := recall("alice", alices); isError || !strings.Contains(text, "4711") {
		t.Errorf("alice recalling her own conversation: error %v, %q", isError, text)
	}
	for name, conv := range map[string]string{"bob's": bobs, "an anonymous": anonymous, "a room's": res.ConversationID, "an unknown": unknown} {
		text, isError := recall("alice", conv)
		if want := "conversation " + conv + " not found"; !isError || text != want {
			t.Errorf("alice recalling %s conversation: error %v, %q; want the error %q", name, isError, text, want)
		}
	}
	for conv, code := range map[string]string{bobs: "9182", anonymous: "5555", res.ConversationID: "3030"} {
		if text, isError := recall("", conv); isError || !strings.Contains(text, code) {
			t.Errorf("the operator recalling %s: error %v, %q", conv, isError, text)
		}
	}

	// `ada mcp --entity alice` on the same data, as a desktop app runs it.
	ada.stop()
	var vars []string
	for k, v := range env {
		vars = append(vars, k+"="+v)
	}
	m := startMCPStdioArgs(t, []string{"--entity", "alice"}, vars...)
	defer m.close()
	for i, conv := range []string{alices, bobs, res.ConversationID} {
		got := m.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"recall_conversation","arguments":{"conversation_id":%q,"query":"locker code"}}}`, 10+i, conv))
		refused := strings.Contains(got, `"isError":true`) && strings.Contains(got, `"text":"conversation `+conv+` not found"`)
		if own := conv == alices; refused == own || own && !strings.Contains(got, "4711") {
			t.Errorf("ada mcp --entity alice recalling %s (hers: %v): %s", conv, own, got)
		}
	}
}

// A client scoped to a front-end user cannot change or delete a memory
// outside that user's scope (another user's, a global one, a room's), and
// the refusal reads as an unknown id's does.
func TestMCPMemoryWritesKeepFrontEndUsersApart(t *testing.T) {
	ada, _, _ := startChatAda(t, "ollama", nil)
	ctx := context.Background()
	const room = "!lockers:example.org"
	var others []string
	for _, in := range []core.MemoryInput{{Text: "Bob's locker code is 9182", Entity: "bob"}, {Text: "The office opens at eight"},
		{Text: "The room's locker code is 3030", Entity: room, RoomID: room}} {
		m, err := ada.svc.CreateMemory(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		others = append(others, m.ID)
	}
	unknown := core.NewDocID()
	notFound := func(id string) string {
		text, _ := mcpToolCall(t, ada.URL, "alice", "delete_memory", map[string]any{"id": id})
		return text
	}
	want := notFound(unknown)
	if want != "memory "+unknown+" not found" {
		t.Fatalf("deleting an unknown id: %q", want)
	}
	for _, id := range others {
		for tool, args := range map[string]map[string]any{"delete_memory": {"id": id}, "update_memory": {"id": id, "text": "Alice was here"}} {
			text, isError := mcpToolCall(t, ada.URL, "alice", tool, args)
			if want := strings.ReplaceAll(want, unknown, id); !isError || text != want {
				t.Errorf("%s of %s as alice: error %v, %q; want the error %q", tool, id, isError, text, want)
			}
		}
		if m, err := ada.svc.GetMemory(ctx, id); err != nil || strings.Contains(m.Text, "Alice") {
			t.Errorf("memory %s after alice's calls: %+v, %v", id, m, err)
		}
	}
}
