package chroma

import (
	"context"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
)

// TestRecentConversationsReadBackFromNow: read back from now over growing
// spans (as a store too large to read at once is), the newest
// conversations are those a whole read finds, with the turns and the
// preview from before the span that found them, and ties broken alike.
func TestRecentConversationsReadBackFromNow(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, storagetest.StartChroma(t).URL+"?database=recent")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	turn := func(conv string, i int, role, text string, at time.Time) core.Document {
		return core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text),
			Meta: core.Metadata{Type: core.DocTurn, Timestamp: at, Source: core.SourceChat, Scope: core.ScopeGlobal,
				ConversationID: conv, Role: role, TurnIndex: &i}}
	}
	long, recent, tiedA, tiedB, old := core.NewConversationID(), core.NewConversationID(), core.NewConversationID(), core.NewConversationID(), core.NewConversationID()
	if err := s.Put(ctx,
		turn(long, 0, "assistant", "Welcome back", now.Add(-72*time.Hour)),
		turn(long, 1, "user", "Where did we leave the garden plans?", now.Add(-71*time.Hour)),
		turn(long, 2, "user", "Let us go on", now.Add(-30*time.Minute)),
		turn(recent, 0, "user", "Hello", now.Add(-2*time.Hour)),
		turn(tiedB, 0, "user", "Second of the tie", now.Add(-20*time.Hour)),
		turn(tiedB, 1, "user", "Tied", now.Add(-5*time.Hour)),
		turn(tiedA, 0, "user", "First of the tie", now.Add(-21*time.Hour)),
		turn(tiedA, 1, "user", "Tied", now.Add(-5*time.Hour)),
		turn(old, 0, "user", "Long ago", now.Add(-400*24*time.Hour)),
	); err != nil {
		t.Fatal(err)
	}
	whole, err := s.RecentConversations(ctx, 10)
	if err != nil || len(whole) != 5 {
		t.Fatalf("whole read: %+v, %v", whole, err)
	}
	s.readWhole = 0
	for _, limit := range []int{1, 2, 3, 4, 5, 10} {
		got, err := s.RecentConversations(ctx, limit)
		if err != nil || len(got) != min(limit, len(whole)) {
			t.Fatalf("limit %d: %+v, %v", limit, got, err)
		}
		for i := range got {
			if got[i] != whole[i] {
				t.Fatalf("limit %d, conversation %d: %+v, want %+v", limit, i, got[i], whole[i])
			}
		}
	}
	if c := whole[0]; c.ID != long || c.TurnCount != 3 || c.Preview != "Where did we leave the garden plans?" {
		t.Fatalf("newest: %+v", c)
	}
	if whole[2].ID != tiedA || whole[3].ID != tiedB || whole[4].ID != old {
		t.Fatalf("order: %+v", whole)
	}
}
