package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

// A member's conversation list previews a conversation as the operator's
// does (storage's RecentConversations): by its first user message, which
// says what it was about, not by its newest turn.
func TestRoomConversationsPreviewTheFirstUserMessage(t *testing.T) {
	ctx := context.Background()
	svc, db := newService(t)
	const room = "!room:example.org"
	conv := core.NewConversationID()
	base := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	turn := func(i int, role, text string) core.Document {
		return core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text), Meta: core.Metadata{
			Type: core.DocTurn, Source: core.SourceChat, Scope: core.ScopeGlobal, Timestamp: base.Add(time.Duration(i) * time.Minute), ConversationID: conv, RoomID: room, Role: role, TurnIndex: &i}}
	}
	if err := db.Put(ctx, turn(0, "user", "What is the capital of France?"), turn(1, "assistant", "Paris."),
		turn(2, "user", "And of Spain?"), turn(3, "assistant", "Madrid.")); err != nil {
		t.Fatal(err)
	}
	operator, err := svc.RecentConversations(ctx, 10)
	if err != nil || len(operator) != 1 {
		t.Fatalf("recent = %+v, %v", operator, err)
	}
	member, err := svc.RoomConversations(ctx, []string{room})
	if err != nil || len(member) != 1 {
		t.Fatalf("room conversations = %+v, %v", member, err)
	}
	if member[0].Preview != "What is the capital of France?" || member[0].Preview != operator[0].Preview {
		t.Fatalf("member preview %q, operator preview %q", member[0].Preview, operator[0].Preview)
	}
	if member[0].TurnCount != 4 || !member[0].Timestamp.Equal(base.Add(3*time.Minute)) {
		t.Fatalf("member row = %+v", member[0])
	}
}
