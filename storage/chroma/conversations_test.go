package chroma

import (
	"context"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// TestRecentConversationsReadBackFromNow: read back from now over growing
// spans (as a store too large to read at once is), the newest
// conversations are those a whole read finds, with the turns and the
// preview from before the span that found them, and ties broken alike.
func TestRecentConversationsReadBackFromNow(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "recent")
	now := time.Now().UTC().Truncate(time.Second)
	long, recent, tiedA, tiedB, old := core.NewConversationID(), core.NewConversationID(), core.NewConversationID(), core.NewConversationID(), core.NewConversationID()
	if err := s.Put(ctx,
		testTurn(long, 0, "assistant", "Welcome back", now.Add(-72*time.Hour)),
		testTurn(long, 1, "user", "Where did we leave the garden plans?", now.Add(-71*time.Hour)),
		testTurn(long, 2, "user", "Let us go on", now.Add(-30*time.Minute)),
		testTurn(recent, 0, "user", "Hello", now.Add(-2*time.Hour)),
		testTurn(tiedB, 0, "user", "Second of the tie", now.Add(-20*time.Hour)),
		testTurn(tiedB, 1, "user", "Tied", now.Add(-5*time.Hour)),
		testTurn(tiedA, 0, "user", "First of the tie", now.Add(-21*time.Hour)),
		testTurn(tiedA, 1, "user", "Tied", now.Add(-5*time.Hour)),
		testTurn(old, 0, "user", "Long ago", now.Add(-400*24*time.Hour)),
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
