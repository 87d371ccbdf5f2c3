package core

import (
	"context"
	"fmt"
	"slices"
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

// TestDeletedTurnsLeaveNoDuplicateInThePrompt: with a gap in the turn
// indices (turn 8 of 0–9 deleted), the recent window is 5, 6, 7, 9, and the
// recall of earlier turns must stop before 5; it once counted back from the
// next index and recalled turn 5 a second time.
func TestDeletedTurnsLeaveNoDuplicateInThePrompt(t *testing.T) {
	u := newUnit(t, unitOptions(), &fakeLLM{})
	seedTurns(t, u, 0, 9)
	if _, err := u.svc.DeleteTurns(context.Background(), summaryConv, []string{turnIDs(u)[8]}, "redacted"); err != nil {
		t.Fatal(err)
	}
	four, eight := 4, 8
	// Every turn's text shares the word "turn": all are relevant.
	p, err := u.svc.DebugPrompt(context.Background(), ChatRequest{Prompt: "turn", ConversationID: summaryConv, TurnsK: &four, RecallK: &eight})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, it := range p.Used.Turns {
		if seen[it.ID] {
			t.Fatalf("turn %q is in the prompt twice: %+v", it.Text, p.Used.Turns)
		}
		seen[it.ID] = true
	}
	if len(seen) < 5 {
		t.Fatalf("%d turns in the prompt, want the 4 recent ones and recalled ones: %+v", len(seen), p.Used.Turns)
	}
}

// TestDeletingTheNewestTurnsLetsTheNextOnesBeSummarised: the newest turns
// deleted, the rewritten summary's range ends at the last turn that
// remains, so the turns that take the freed indices are summarised next
// (they were once left out: the old range still claimed them).
func TestDeletingTheNewestTurnsLetsTheNextOnesBeSummarised(t *testing.T) {
	llm := &fakeLLM{replies: []reply{{tokens: []string{"Up to 13."}}, {tokens: []string{"The new 14 and 15."}}}}
	u := newUnit(t, unitOptions(), llm)
	seedTurns(t, u, 0, 15)
	u.seed(t, summaryDoc(0, 15, 0, testClock.Add(time.Minute), "all sixteen"))
	ids := turnIDs(u)
	if _, err := u.svc.DeleteTurns(context.Background(), summaryConv, []string{ids[14], ids[15]}, "redacted"); err != nil {
		t.Fatal(err)
	}
	u.svc.bg.wait()
	seedTurns(t, u, 14, 15) // the next exchange takes indices 14 and 15 again
	if err := u.svc.summarize(context.Background(), summaryConv, "", 15); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range u.store.byType(DocSummary) {
		got = append(got, s.Meta.TurnRange+": "+s.Text)
	}
	slices.Sort(got)
	if want := []string{"0-13: Up to 13.", "14-15: The new 14 and 15."}; !slices.Equal(got, want) {
		t.Fatalf("summaries %q, want %q", got, want)
	}
}
