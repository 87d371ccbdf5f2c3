package core

import (
	"testing"
	"time"
)

// TestRankRecallSessionBonus: of two turns equally relevant on their own,
// the one among other relevant turns of its session ranks first; a session
// ends where the turns are more than sessionGap apart.
func TestRankRecallSessionBonus(t *testing.T) {
	day1 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	day9 := day1.Add(8 * 24 * time.Hour)
	turn := func(id string, at time.Time, rel float64) relevantDoc {
		return relevantDoc{Document: Document{ID: id, Meta: Metadata{Type: DocTurn, Timestamp: at}}, Relevance: rel}
	}
	docs := []relevantDoc{
		turn("lone", day1, 0.4),
		turn("among", day9, 0.4),
		turn("strong", day9.Add(sessionGap), 0.8),  // same session: exactly sessionGap later
		turn("later", day9.Add(3*sessionGap), 0.1), // a session of its own
		{Document: Document{ID: "summary", Meta: Metadata{Type: DocSummary, Timestamp: day1}}, Relevance: 0.3},
	}
	got := rankRecall(docs)
	var order []string
	score := map[string]float64{}
	for _, d := range got {
		order = append(order, d.ID)
		score[d.ID] = d.Score
	}
	want := []string{"strong", "among", "lone", "summary", "later"}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v (scores %v)", order, want, score)
		}
	}
	for id, w := range map[string]float64{"strong": 1.2, "among": 0.8, "lone": 0.6, "summary": 0.45, "later": 0.15} {
		if score[id] != w {
			t.Errorf("%s: score %v, want %v", id, score[id], w)
		}
	}
}
