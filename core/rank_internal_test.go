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
	got := rankRecall(docs, askedTimes{}, 0)
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

// TestFuse: each mode's relevance from the same candidates, A proposed by
// both searches, B by the keywords alone (its vector orthogonal to the
// query's). BM25 maps to 0..1 against the best match (B's 10, above
// keywordScale); a relevance of 0 or below the floor drops the document.
func TestFuse(t *testing.T) {
	vec := []float32{1, 0}
	a := Document{ID: "a", Embedding: []float32{0.6, 0.8}}
	b := Document{ID: "b", Embedding: []float32{0, 1}}
	vecHits := []Hit{{Document: a, Distance: 0.4}}
	kwHits := []KeywordHit{{Document: b, BM25: 10}, {Document: a, BM25: 2.5}}
	for _, tc := range []struct {
		mode  string
		floor float64
		want  map[string]float64 // id → relevance, in rank order
		order []string
	}{
		{SearchHybrid, 0, map[string]float64{"b": 1, "a": 0.7}, []string{"b", "a"}},
		{SearchHybrid, 0.8, map[string]float64{"b": 1}, []string{"b"}},
		{SearchVector, 0, map[string]float64{"a": 0.6}, []string{"a"}},
		{SearchKeyword, 0, map[string]float64{"b": 1, "a": 0.25}, []string{"b", "a"}},
	} {
		got := fuse(tc.mode, vec, vecHits, kwHits, tc.floor, 10)
		if len(got) != len(tc.order) {
			t.Fatalf("%s floor %v: got %d results, want %v", tc.mode, tc.floor, len(got), tc.order)
		}
		for i, d := range got {
			if d.ID != tc.order[i] || d.Relevance != tc.want[d.ID] {
				t.Errorf("%s floor %v: #%d is %s with relevance %v, want %s with %v", tc.mode, tc.floor, i, d.ID, d.Relevance, tc.order[i], tc.want[tc.order[i]])
			}
		}
	}
	if got := fuse(SearchHybrid, vec, vecHits, kwHits, 0, 1); len(got) != 1 || got[0].ID != "b" {
		t.Errorf("k=1: got %v, want only b", got)
	}
}

// TestRankRecallNamedTime: of two turns equally relevant, in sessions of
// their own, the one from the month the query names ranks first, with its
// time bonus (half the best relevance) in its explanation; a turn of that
// month that is not relevant gains nothing, and a query naming no time
// leaves the order to relevance.
func TestRankRecallNamedTime(t *testing.T) {
	june := time.Date(2025, 6, 12, 10, 0, 0, 0, time.UTC)
	turn := func(id string, at time.Time, rel float64) relevantDoc {
		return relevantDoc{Document: Document{ID: id, Meta: Metadata{Type: DocTurn, Timestamp: at}}, Relevance: rel}
	}
	docs := []relevantDoc{
		turn("may", june.AddDate(0, -1, 0), 0.6),
		turn("june", june, 0.6),
		turn("june-unrelated", june.Add(3*sessionGap), 0),
	}
	got := rankRecall(docs, timesAsked("Where did we go camping in June?", june.AddDate(1, 0, 0), nil), 0)
	if got[0].ID != "june" || got[0].Explain.TimeBonus == nil || *got[0].Explain.TimeBonus != 0.3 || got[0].Score != 1.2 {
		t.Fatalf("first %s with score %v, time bonus %v; want june with 1.2 = 0.6 + 0.3 session + 0.3 time", got[0].ID, got[0].Score, got[0].Explain.TimeBonus)
	}
	for _, d := range got[1:] {
		if d.Explain.TimeBonus != nil {
			t.Errorf("%s: time bonus %v, want none", d.ID, *d.Explain.TimeBonus)
		}
	}
	if got := rankRecall(docs, timesAsked("Where did we go camping?", june.AddDate(1, 0, 0), nil), 0); got[0].ID != "may" || got[0].Explain.TimeBonus != nil {
		t.Errorf("no time named: first %s, want may (first of the equals), without a time bonus", got[0].ID)
	}
}

// TestRankRecallBelowFloor: a turn of the time the prompt names below the
// floor is timeAdmitted, counted as at the floor, only when it shares a
// word with the prompt (a keyword match) and at most half of the turns
// sharing one are of that time.
func TestRankRecallBelowFloor(t *testing.T) {
	asked := time.Date(2026, 3, 11, 12, 0, 0, 0, time.UTC)
	lastWeek, thisWeek := asked.AddDate(0, 0, -7), asked.AddDate(0, 0, -1)
	rank := 1
	turn := func(id string, at time.Time, rel float64, shares bool) relevantDoc {
		d := relevantDoc{Document: Document{ID: id, Meta: Metadata{Type: DocTurn, Timestamp: at}}, Relevance: rel}
		if shares {
			d.Explain.KeywordRank = &rank
		}
		return d
	}
	q := timesAsked("What did we decide about shipping last week?", asked, nil)
	admitted := func(docs []relevantDoc) map[string]float64 {
		out := map[string]float64{}
		for _, d := range rankRecall(docs, q, 0.15) {
			if d.timeAdmitted {
				out[d.ID] = d.Score
			}
		}
		return out
	}
	docs := []relevantDoc{
		turn("low", lastWeek, 0.01, true),
		turn("unshared", lastWeek.Add(2*sessionGap), 0.01, false),
		turn("above", lastWeek.Add(4*sessionGap), 0.3, true),
		turn("other", thisWeek, 0.6, true),
		turn("other2", thisWeek.Add(2*sessionGap), 0.5, true),
	}
	// Of the four turns sharing a word, two are of last week: half.
	got := admitted(docs)
	// 0.15 (the floor) + 0.005 (its session's half) + 0.3 (half of 0.6).
	if len(got) != 1 || got["low"] != 0.455 {
		t.Errorf("admitted %v, want only low, scored 0.455", got)
	}
	// Three of five: more than half tell nothing apart.
	docs = append(docs, turn("more", lastWeek.Add(6*sessionGap), 0.2, true))
	if got := admitted(docs); len(got) != 0 {
		t.Errorf("more than half of those sharing a word are of last week: admitted %v", got)
	}
}
