package core

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestNeighboursRankAfterTheHits: a recalled question is followed by its
// answer, the turn after it; the other neighbours (the turn before each
// hit, the turn after one that asks nothing) come after every hit, so a
// ranking cut short keeps the hits; the chat still gets them all.
func TestNeighboursRankAfterTheHits(t *testing.T) {
	ctx := context.Background()
	u := newUnit(t, unitOptions(), &fakeLLM{})
	conv := NewConversationID()
	docs := make([]Document, 30)
	for i := range docs {
		text := fmt.Sprintf("Turn %d about the garden.", i)
		if i == 10 {
			text = "Which roses did you plant?"
		}
		docs[i] = Document{Text: text, Meta: Metadata{Type: DocTurn, ConversationID: conv, TurnIndex: new(i), Role: "user",
			Source: "chat", Timestamp: testClock.Add(time.Duration(i-100) * time.Minute)}}
	}
	u.seed(t, docs...)
	hit := func(i int, rel float64) recalledDoc {
		return recalledDoc{relevantDoc: relevantDoc{Document: docs[i], Relevance: rel}, Score: rel}
	}
	found, err := u.svc.withNeighbours(ctx, conv, []recalledDoc{hit(10, 0.9), hit(20, 0.5), hit(19, 0.2)}, 30)
	if err != nil {
		t.Fatal(err)
	}
	var order []int
	for _, d := range found {
		order = append(order, *d.Meta.TurnIndex)
	}
	if want := []int{10, 11, 20, 19, 9, 21, 18}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v: the question with its answer, the hits, then the context", order, want)
	}
	for _, d := range found {
		if i := *d.Meta.TurnIndex; (i == 11 || i == 9) && d.neighbourOf != docs[10].ID {
			t.Errorf("turn %d: neighbour of %q, want of turn 10", i, d.neighbourOf)
		}
	}
}
