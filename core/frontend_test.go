package core

import (
	"strings"
	"testing"
)

func TestCheckFrontEndUser(t *testing.T) {
	for _, id := range []string{"", "alice", "alice@example.com", "a!b", "user:42", " kim "} {
		if err := CheckFrontEndUser("user", id); err != nil {
			t.Errorf("%q refused: %v", id, err)
		}
	}
	for _, id := range []string{"@alice:server", "!room:server", "!opaqueroomv12", "#lobby:server", "+group:server", " @alice:server"} {
		err := CheckFrontEndUser("X-Ada-Entity", id)
		if KindOf(err) != KindInvalid || !strings.HasPrefix(err.Error(), "X-Ada-Entity: ") || !strings.Contains(err.Error(), "Matrix") {
			t.Errorf("%q: %v, want an invalid-input error naming the header and Matrix", id, err)
		}
	}
}

func TestFrontEndChat(t *testing.T) {
	key, err := NewConversationKey([]byte(strings.Repeat("k", 32)))
	if err != nil {
		t.Fatal(err)
	}
	other, _ := NewConversationKey([]byte(strings.Repeat("o", 32)))
	conv := func(k ConversationKey, user, session string, opening ...string) ChatRequest {
		req := ChatRequest{Entity: user}
		k.FrontEndChat(&req, session, opening)
		if !ValidConversationID(req.ConversationID) {
			t.Fatalf("id %q", req.ConversationID)
		}
		return req
	}
	first := conv(key, "sam", "", "user", "hi")
	if first.AutoMemory != nil {
		t.Errorf("a user's chat has automatic memories %v, want the setting", *first.AutoMemory)
	}
	if again := conv(key, "sam", "", "user", "hi"); again.ConversationID != first.ConversationID {
		t.Error("the same opening gave another conversation")
	}
	for name, req := range map[string]ChatRequest{
		"another user":    conv(key, "kim", "", "user", "hi"),
		"another opening": conv(key, "sam", "", "user", "hey"),
		"a session":       conv(key, "sam", "s1", "user", "hi"),
		"another key":     conv(other, "sam", "", "user", "hi"),
		"parts shifted":   conv(key, "sam", "", "userhi"),
		"no key":          conv(ConversationKey{}, "sam", "", "user", "hi"),
	} {
		if req.ConversationID == first.ConversationID {
			t.Errorf("%s gives the same conversation", name)
		}
	}
	if conv(key, "sam", "s1", "user", "a").ConversationID != conv(key, "sam", "s1", "user", "b").ConversationID {
		t.Error("a session id does not name the conversation")
	}
	// Anonymous: a new conversation each time unless a session names it,
	// and never automatic memories.
	a, b := conv(key, "", "", "user", "hi"), conv(key, "", "", "user", "hi")
	if a.ConversationID == b.ConversationID || a.AutoMemory == nil || *a.AutoMemory {
		t.Errorf("anonymous requests: %s, %s, automatic memories %v", a.ConversationID, b.ConversationID, a.AutoMemory)
	}
	if conv(key, "", "s1").ConversationID != conv(key, "", "s1").ConversationID {
		t.Error("an anonymous session does not continue")
	}
	if _, err := NewConversationKey([]byte("short")); err == nil {
		t.Error("a short secret was accepted")
	}
}
