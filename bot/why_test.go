package bot

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// TestDropWhy: the answer kept for `!ada why` is forgotten when its question
// or reply is redacted, or when a memory, turn or summary it quotes is
// deleted; anything else leaves it.
func TestDropWhy(t *testing.T) {
	answer := func() *lastAnswer {
		return &lastAnswer{questionEvent: "$q", replyEvent: "$r", question: "what is my PIN?",
			used: core.UsedContext{Memories: []core.ContextItem{{ID: "doc-mem"}}, Turns: []core.ContextItem{{ID: "doc-turn"}},
				Summaries: []core.ContextItem{{ID: "doc-sum"}}}}
	}
	tests := []struct {
		name    string
		event   id.EventID
		docs    []string
		dropped bool
	}{
		{"the question redacted", "$q", nil, true},
		{"the reply redacted", "$r", nil, true},
		{"a used memory deleted", "", []string{"doc-mem"}, true},
		{"a used turn deleted", "$other", []string{"doc-turn"}, true},
		{"a used summary deleted", "", []string{"doc-x", "doc-sum"}, true},
		{"another message redacted", "$other", nil, false},
		{"another memory deleted", "", []string{"doc-x"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt := &roomRuntime{lastAnswer: answer()}
			rt.dropWhy(tc.event, tc.docs...)
			if (rt.lastAnswer == nil) != tc.dropped {
				t.Fatalf("dropped = %v, want %v", rt.lastAnswer == nil, tc.dropped)
			}
		})
	}
}

// TestDropWhyQuotingSummaries (issue 26): deleting turns removes the
// summaries that covered them without the bridge learning which, so the
// last answer goes, in memory and kept (also after a restart, when only the
// kept one is left), when it quotes any summary; one that quotes none stays.
func TestDropWhyQuotingSummaries(t *testing.T) {
	ctx := t.Context()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b, log := db.Bridge(), slog.New(slog.DiscardHandler)
	withSummary := &lastAnswer{questionEvent: "$q", replyEvent: "$r", question: "q", at: time.Now(),
		used: core.UsedContext{Turns: []core.ContextItem{{ID: "doc-turn"}}, Summaries: []core.ContextItem{{ID: "doc-sum", Text: "the secret"}}}}
	withoutSummary := &lastAnswer{questionEvent: "$q2", replyEvent: "$r2", question: "q2", at: time.Now(),
		used: core.UsedContext{Turns: []core.ContextItem{{ID: "doc-turn"}}}}
	kept := func(room id.RoomID) bool {
		_, ok, err := b.LoadWhy(ctx, room.String())
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	tests := []struct {
		name      string
		la        *lastAnswer
		inMemory  bool
		wantStays bool
	}{
		{"quotes a summary", withSummary, true, false},
		{"quotes a summary, after a restart", withSummary, false, false},
		{"quotes no summary", withoutSummary, true, true},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			room := id.RoomID(fmt.Sprintf("!room%d:localhost", i))
			rooms := &roomStates{m: map[id.RoomID]*roomRuntime{}}
			saveWhy(ctx, b, log, room, tc.la, true)
			if tc.inMemory {
				rooms.get(room).lastAnswer = tc.la
			}
			dropWhyQuotingSummaries(ctx, b, rooms, log, room)
			if got := kept(room); got != tc.wantStays {
				t.Errorf("kept last answer stays = %v, want %v", got, tc.wantStays)
			}
			if tc.inMemory && (rooms.get(room).lastAnswer != nil) != tc.wantStays {
				t.Errorf("last answer in memory stays = %v, want %v", rooms.get(room).lastAnswer != nil, tc.wantStays)
			}
		})
	}
}

// TestWhyTextBounded (issue 40 item 15): a recall of 17 turns is not 17
// lines: each section shows its first whyListed items and counts the rest.
func TestWhyTextBounded(t *testing.T) {
	var turns []core.ContextItem
	for i := range 17 {
		turns = append(turns, core.ContextItem{ID: fmt.Sprint("doc-", i), Text: fmt.Sprint("turn ", i), Reason: core.ReasonRecalled, Role: "user"})
	}
	got := whyText(&lastAnswer{question: "q", asker: "alice", at: time.Now(), used: core.UsedContext{Turns: turns}})
	if strings.Count(got, "\n") > whyListed+6 || !strings.Contains(got, "(17)") || !strings.Contains(got, "and 9 more") {
		t.Errorf("why of 17 recalled turns:\n%s", got)
	}
}
