package core

import (
	"context"
	"testing"
)

// TestMintedConversationReadsNoWindow: a chat that names no conversation
// is given a new one, which holds nothing yet: its recent window is not
// read (on Chroma, two reads of the store saved). The next chat in it
// reads its window, and finds the first exchange there.
func TestMintedConversationReadsNoWindow(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t, unitOptions(), &fakeLLM{replies: []reply{{tokens: []string{"Green tea."}}, {tokens: []string{"Yes, green."}}}})
	windowReads := func() int {
		u.store.mu.Lock()
		defer u.store.mu.Unlock()
		return u.store.windowReads
	}
	first, err := u.svc.Chat(ctx, ChatRequest{Prompt: "Which tea do I drink?", Store: true}, func(Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if n := windowReads(); n != 0 {
		t.Errorf("a chat in a conversation it was given read its window %d times, want none", n)
	}
	next, err := u.svc.Chat(ctx, ChatRequest{Prompt: "Are you sure?", ConversationID: first.ConversationID, Store: true}, func(Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if n := windowReads(); n == 0 {
		t.Error("the next chat in the conversation did not read its window")
	}
	if got := len(next.UsedContext.Turns); got != 2 {
		t.Errorf("the next chat's context holds %d turns, want the first exchange's 2", got)
	}
}

// A chat's retrieval is one read scope (a store may read the conversation
// once for all of it); the turns it saves are written outside it.
func TestRetrievalIsOneReadScope(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t, unitOptions(), &fakeLLM{replies: []reply{{tokens: []string{"Green tea."}}, {tokens: []string{"Yes, green."}}}})
	first, err := u.svc.Chat(ctx, ChatRequest{Prompt: "Which tea do I drink?", Store: true}, func(Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.svc.Chat(ctx, ChatRequest{Prompt: "Are you sure?", ConversationID: first.ConversationID, Store: true}, func(Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	u.store.mu.Lock()
	defer u.store.mu.Unlock()
	if u.store.windowReads == 0 || u.store.scopedWindowReads != u.store.windowReads {
		t.Errorf("%d of the chat's %d window reads were in a read scope, want all", u.store.scopedWindowReads, u.store.windowReads)
	}
	if u.store.scopedWrites != 0 {
		t.Errorf("%d writes were made in a read scope, want none", u.store.scopedWrites)
	}
}
