package core

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFitBudgetKeepsEachNeighbourWithItsTurn: the recalled context is in
// time order when the budget is fitted, so a neighbour before its recalled
// turn comes right after the previous recalled turn's group. It must still
// go in or stay out with its own turn: a budget that has room for the
// relevant turn's group only keeps that group, whole, and no neighbour of
// the turn that did not fit.
func TestFitBudgetKeepsEachNeighbourWithItsTurn(t *testing.T) {
	ctx := context.Background()
	opts := unitOptions()
	opts.ContextBudget = 1000
	u := newUnit(t, opts, &fakeLLM{})
	conv := NewConversationID()
	docs := make([]Document, 30)
	for i := range docs {
		text := fmt.Sprintf("Turn %d about the garden.", i)
		if i == 20 || i == 21 { // the less relevant group cannot fit
			text = strings.Repeat(fmt.Sprintf("turn %d filler ", i), 200)
		}
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		docs[i] = Document{Text: text, Meta: Metadata{Type: DocTurn, ConversationID: conv, TurnIndex: new(i), Role: role,
			Source: "chat", Timestamp: testClock.Add(time.Duration(i-100) * time.Minute)}}
	}
	u.seed(t, docs...)
	hit := func(i int, rel float64) recalledDoc {
		return recalledDoc{relevantDoc: relevantDoc{Document: docs[i], Relevance: rel}, Score: rel}
	}
	found, err := u.svc.withNeighbours(ctx, conv, []recalledDoc{hit(10, 0.9), hit(20, 0.2)}, 30)
	if err != nil {
		t.Fatal(err)
	}
	// As recall leaves them.
	slices.SortStableFunc(found, func(a, b recalledDoc) int { return a.Meta.Timestamp.Compare(b.Meta.Timestamp) })
	r := retrieval{used: emptyUsedContext(""), recalled: found}
	u.svc.fitBudget(ChatRequest{Prompt: "What about the garden?", ConversationID: conv}, &r)
	var kept []int
	for _, d := range r.recalled {
		kept = append(kept, *d.Meta.TurnIndex)
	}
	if want := []int{9, 10, 11}; !slices.Equal(kept, want) {
		t.Errorf("kept turns %v, want %v: turn 10 with both its neighbours, nothing of turn 20's", kept, want)
	}
}
