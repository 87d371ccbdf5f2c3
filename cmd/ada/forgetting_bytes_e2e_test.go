package main

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// forgottenStems are the distinctive words of TestForgottenWordsLeaveNoBytes
// as the keyword index keeps them too (porter stems: "quixotrombone" is
// indexed as "quixotrombon"), so a byte search finds either form.
var forgottenStems = []string{"zanzibarquokk", "quixotrombon", "blorptanger", "flumphdood", "grubblefax"}

// TestForgottenWordsLeaveNoBytes is issue 36's acceptance for forgetting:
// a memory corrected (its old version retired), a memory deleted, an API
// entity forgotten (DELETE /v1/memory?entity=) and a room member forgotten
// through the path `!ada forget me` takes (core's Forget with the member and
// the room): afterwards no answer, no history, no `ada export` and no byte
// of ada.db or its WAL after a clean stop holds any of the forgotten words.
func TestForgottenWordsLeaveNoBytes(t *testing.T) {
	ada, llm, env := startChatAda(t, "ollama", nil)
	ctx := context.Background()
	llm.Default(llmtest.Reply{Tokens: []string{"Noted."}})
	conv := core.NewConversationID()
	chat := func(prompt string) {
		t.Helper()
		var r chatResponse
		if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": prompt, "conversation_id": conv, "entity": "sam"}, &r); st != 200 {
			t.Fatalf("chat %q: %d", prompt, st)
		}
		ada.settle() // the extraction has run
	}
	// A fact, then its correction: the old memory is retired, the new one
	// names it by the alias the model was shown.
	llm.ScriptFormatted(factsReply(`{"text": "Sam's locker code is zanzibarquokka", "importance": 4}`))
	chat("please remember my locker code")
	old := listMemories(t, ada, "entity=sam")
	if len(old) != 1 {
		t.Fatalf("memories after the first fact: %+v", old)
	}
	llm.ScriptFormatted(factsReply(`{"text": "Sam's locker code is now quixotrombone", "importance": 4, "replaces": ["m1"]}`))
	chat("I changed my locker code")
	current := listMemories(t, ada, "entity=sam")
	if len(current) != 1 || current[0].ID == old[0].ID {
		t.Fatalf("the correction did not retire the old memory: %+v", current)
	}
	ids := []string{old[0].ID, current[0].ID}

	// A memory deleted by id.
	var attic struct {
		ID string `json:"id"`
	}
	if st := ada.call("POST", "/v1/memory", map[string]any{"text": "The attic key hides under the blorptangerine"}, &attic); st != 201 {
		t.Fatalf("create: %d", st)
	}
	ids = append(ids, attic.ID)
	if st := ada.call("DELETE", "/v1/memory/"+attic.ID, nil, nil); st != 200 && st != 204 {
		t.Fatalf("delete: %d", st)
	}
	// The API entity forgotten, its correction's old version with it.
	if st := ada.call("DELETE", "/v1/memory?entity=sam", nil, nil); st != 200 {
		t.Fatalf("forget entity: %d", st)
	}
	// A room member forgotten as `!ada forget me` does (bot/commands_forget_me.go):
	// what she said and told, her fact that Bob corrected among it (the
	// correction is Bob's and stays).
	const room, alice, bob = "!lab:example.org", "@alice:example.org", "@bob:example.org"
	roomConv := core.NewConversationID()
	roomChat := func(who core.Speaker, prompt string) {
		t.Helper()
		req := core.ChatRequest{Prompt: prompt, ConversationID: roomConv, RoomID: room, Entity: room, Speaker: &who, Store: true}
		if _, err := ada.svc.Chat(ctx, req, func(core.Event) error { return nil }); err != nil {
			t.Fatalf("room chat %q: %v", prompt, err)
		}
		ada.settle()
	}
	llm.ScriptFormatted(factsReply(`{"text": "The bike shed code is grubblefax", "importance": 3}`))
	roomChat(core.Speaker{Name: "Alice", UserID: alice}, "the bike shed code is grubblefax")
	roomMemories := core.Filter{Type: core.DocMemory, RoomID: room}
	shed := documentsIn(t, env, roomMemories)
	if len(shed) != 1 {
		t.Fatalf("room memories after Alice's fact: %+v", shed)
	}
	ids = append(ids, shed[0].ID)
	llm.ScriptFormatted(factsReply(`{"text": "The bike shed code is now snorklewump", "importance": 3, "replaces": ["m1"]}`))
	roomChat(core.Speaker{Name: "Bob", UserID: bob}, "the shed code changed")
	if got := documentsIn(t, env, roomMemories); len(got) != 1 || got[0].ID == shed[0].ID {
		t.Fatalf("Bob's correction did not retire Alice's fact: %+v", got)
	}
	told, err := ada.svc.CreateMemory(ctx, core.MemoryInput{Text: "Alice's bike lock opens with flumphdoodle", RoomID: room, UserID: alice})
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, told.ID)
	if _, err := ada.svc.PatchMemory(ctx, told.ID, core.MemoryPatch{Text: new("Alice's bike lock opens with flumphdoodle twice")}); err != nil {
		t.Fatal(err)
	}
	if res, err := ada.svc.Forget(ctx, core.ForgetRequest{Entity: alice, RoomID: room, Reason: "a member asked Ada to forget them in the room"}); err != nil || res.Memories != 1 {
		t.Fatalf("forget the member: %+v %v", res, err)
	}

	// No answer: searches, histories, the page's list of what was forgotten.
	for _, stem := range forgottenStems {
		_, body := ada.send("", "GET", "/v1/memory?search="+url.QueryEscape(stem), nil)
		assertNoForgottenWords(t, "a search for "+stem, body)
	}
	for _, id := range ids {
		_, body := ada.send("", "GET", "/v1/memory/"+id+"/history", nil)
		assertNoForgottenWords(t, "the history of "+id, body)
		_, body = ada.send("", "GET", "/v1/memory/"+id, nil)
		assertNoForgottenWords(t, "GET /v1/memory/"+id, body)
	}
	gone, err := ada.svc.Forgotten(ctx, nil, 100) // nil: the operator, who sees all
	if err != nil {
		t.Fatal(err)
	}
	assertNoForgottenWords(t, "the list of what was forgotten", []byte(toJSON(gone)))

	// No bytes: the database and its WAL after a clean stop, then the export.
	ada.stop()
	for _, name := range []string{"ada.db", "ada.db-wal"} {
		data, err := os.ReadFile(filepath.Join(env["DATA_DIR"], name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		assertNoForgottenWords(t, name, data)
	}
	file := filepath.Join(t.TempDir(), "export.jsonl")
	if _, err := runCmd(ctx, env, nil, "export", file); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	assertNoForgottenWords(t, "ada export", data)
	if !bytes.Contains(data, []byte(`"event":"retire"`)) || !bytes.Contains(data, []byte(`"event":"delete"`)) {
		t.Errorf("the export lost the records of what went:\n%s", data)
	}
}

// assertNoForgottenWords fails the test if data holds any forgotten word.
func assertNoForgottenWords(t *testing.T, where string, data []byte) {
	t.Helper()
	assertNoWords(t, where, data, forgottenStems)
}

// assertNoWords fails the test if data holds any of words (lower case),
// whatever their case there.
func assertNoWords(t *testing.T, where string, data []byte, words []string) {
	t.Helper()
	// ASCII folding keeps the offsets (a binary file is not UTF-8).
	lower := make([]byte, len(data))
	for i, b := range data {
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		lower[i] = b
	}
	for _, stem := range words {
		if i := bytes.Index(lower, []byte(stem)); i >= 0 {
			t.Errorf("%s still holds %q: …%s…", where, stem, strings.ToValidUTF8(string(data[max(0, i-60):min(len(data), i+60)]), "?"))
		}
	}
}
