package core

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// turnIDs returns the ids of the seeded turns of summaryConv by index.
func turnIDs(u *unit) map[int]string {
	u.store.mu.Lock()
	defer u.store.mu.Unlock()
	ids := map[int]string{}
	for _, d := range u.store.docs {
		if d.Meta.Type == DocTurn && d.Meta.ConversationID == summaryConv {
			ids[*d.Meta.TurnIndex] = d.ID
		}
	}
	return ids
}

func summaryDoc(first, last, index int, ts time.Time, text string) Document {
	return Document{Text: text, Meta: Metadata{Type: DocSummary, Timestamp: ts, Source: SourceSystem, Scope: ScopeGlobal,
		ConversationID: summaryConv, TurnRange: fmt.Sprintf("%d-%d", first, last), SummaryIndex: &index}}
}

// TestDeleteTurnsRewritesTheCoveringSummary: deleting turns removes the
// summary that covered them at once and writes it again from the turns
// that remain, with its range, index and time; the deleted text reaches
// neither the store nor the model.
func TestDeleteTurnsRewritesTheCoveringSummary(t *testing.T) {
	llm := &fakeLLM{replies: []reply{{tokens: []string{"What remains."}}}}
	u := newUnit(t, unitOptions(), llm)
	seedTurns(t, u, 0, 7)
	old := summaryDoc(0, 7, 0, testClock.Add(time.Minute), "turn-002 said the secret")
	u.seed(t, old)
	ids := turnIDs(u)

	n, err := u.svc.DeleteTurns(context.Background(), summaryConv, []string{ids[2], ids[3], "doc-00000000-0000-4000-8000-000000000000"}, "redacted")
	if err != nil || n != 2 {
		t.Fatalf("DeleteTurns: %d, %v; want 2 turns deleted", n, err)
	}
	u.svc.bg.wait()

	sums, err := u.store.List(context.Background(), Filter{Type: DocSummary, ConversationID: summaryConv}, 10)
	if err != nil || len(sums) != 1 {
		t.Fatalf("summaries after the rewrite: %v %v", sums, err)
	}
	got := sums[0]
	if got.ID == old.ID || got.Text != "What remains." || got.Meta.TurnRange != "0-7" || *got.Meta.SummaryIndex != 0 || !got.Meta.Timestamp.Equal(old.Meta.Timestamp) {
		t.Errorf("rewritten summary %+v; want a new one for 0-7, index 0, at the old time", got)
	}
	transcript := llm.calls()[0].Messages[1].Content
	if strings.Contains(transcript, "turn-002") || strings.Contains(transcript, "turn-003") || !strings.Contains(transcript, "turn-004") {
		t.Errorf("the rewrite must see the remaining turns only:\n%s", transcript)
	}
}

// TestRewriteSkipsARangeSummarisedAgain: when a later summary already
// covers part of the range (summarised again before the rewrite ran),
// nothing is written and the model is not asked.
func TestRewriteSkipsARangeSummarisedAgain(t *testing.T) {
	llm := &fakeLLM{}
	u := newUnit(t, unitOptions(), llm)
	seedTurns(t, u, 0, 9)
	u.seed(t, summaryDoc(0, 9, 0, testClock, "covers it all"))
	if err := u.svc.rewriteSummary(context.Background(), summaryDoc(0, 7, 0, testClock, "removed")); err != nil {
		t.Fatal(err)
	}
	if n := len(llm.calls()); n != 0 {
		t.Errorf("%d model calls for a range summarised again", n)
	}
	if sums, _ := u.store.List(context.Background(), Filter{Type: DocSummary, ConversationID: summaryConv}, 10); len(sums) != 1 {
		t.Errorf("%d summaries, want only the newer one", len(sums))
	}
}
