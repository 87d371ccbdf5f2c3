package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

const summaryConv = "conv-0b5e7f9e-3c1a-4d2b-8e6f-5a4b3c2d1e0f"

// seedTurns stores turns from..to of summaryConv, texts "turn-NNN".
func seedTurns(t *testing.T, u *unit, from, to int) {
	t.Helper()
	for i := from; i <= to; i++ {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		u.seed(t, turnDocument("", summaryConv, role, fmt.Sprintf("turn-%03d", i), nil, testClock.Add(time.Duration(i)*time.Second), i, SourceChat))
	}
}

// TestSummariesStayContiguous: a failed summary leaves no gap: the next one
// starts where the last stored summary ended, so it covers the failed
// range too. Each summary is stored with its text, turn_range, index and
// room, and sees exactly the turns of its range.
func TestSummariesStayContiguous(t *testing.T) {
	llm := &fakeLLM{replies: []reply{
		{err: Errorf(KindUpstream, "LLM backend fake: overloaded")},
		{tokens: []string{"  Sam planned a trip. "}},
		{tokens: []string{"Sam booked it."}},
	}}
	u := newUnit(t, unitOptions(), llm)
	u.svc.now = tick(testClock.Add(time.Hour))
	seedTurns(t, u, 0, 7)
	steps := []struct {
		name      string
		addUpTo   int // turns up to this index exist before the step
		lastTurn  int
		wantErr   bool
		wantRange string // of the newest summary; "" for none
		wantIndex int
		wantCalls int // LLM calls so far
	}{
		{"the model fails", 7, 3, true, "", 0, 1},
		{"the next covers the failed range too", 7, 7, false, "0-7", 0, 2},
		{"nothing new: no call", 7, 7, false, "0-7", 0, 2},
		{"then from where it ended", 11, 11, false, "8-11", 1, 3},
	}
	for _, st := range steps {
		seedTurns(t, u, 8, st.addUpTo)
		err := u.svc.summarize(context.Background(), summaryConv, "!room:example.org", st.lastTurn)
		if (err != nil) != st.wantErr {
			t.Fatalf("%s: err = %v", st.name, err)
		}
		if n := len(llm.calls()); n != st.wantCalls {
			t.Fatalf("%s: %d LLM calls, want %d", st.name, n, st.wantCalls)
		}
		sums := u.store.byType(DocSummary)
		if st.wantRange == "" {
			if len(sums) != 0 {
				t.Fatalf("%s: summaries %+v after a failure", st.name, sums)
			}
			continue
		}
		s := sums[len(sums)-1]
		if s.Meta.TurnRange != st.wantRange || *s.Meta.SummaryIndex != st.wantIndex || s.Meta.RoomID != "!room:example.org" ||
			!s.Meta.Timestamp.After(testClock) || len(s.Embedding) != Dim {
			t.Fatalf("%s: summary %+v", st.name, s.Meta)
		}
	}
	sums := u.store.byType(DocSummary)
	if len(sums) != 2 || sums[0].Text != "Sam planned a trip." || sums[1].Text != "Sam booked it." {
		t.Fatalf("summaries %+v", sums)
	}
	// Each call saw its range, oldest first, and nothing outside it.
	calls := llm.calls()
	checkTranscript(t, calls[1], 0, 7)
	checkTranscript(t, calls[2], 8, 11)
}

// checkTranscript: the summary request lists turns first..last in order,
// named by speaker, and no other turn.
func checkTranscript(t *testing.T, req LLMRequest, first, last int) {
	t.Helper()
	got := req.Messages[len(req.Messages)-1].Content
	var want strings.Builder
	for i := first; i <= last; i++ {
		who := "User"
		if i%2 == 1 {
			who = "Ada"
		}
		fmt.Fprintf(&want, "%s: turn-%03d\n", who, i)
	}
	if _, transcript, _ := strings.Cut(got, "\n\n"); transcript != want.String() {
		t.Errorf("transcript of %d-%d:\n%s\nwant:\n%s", first, last, transcript, want.String())
	}
}

// TestSummaryBacklogInPieces: a backlog longer than maxSummaryTurns is
// caught up in contiguous pieces of at most that many turns.
func TestSummaryBacklogInPieces(t *testing.T) {
	llm := &fakeLLM{replies: []reply{{tokens: []string{"one"}}, {tokens: []string{"two"}}}}
	u := newUnit(t, unitOptions(), llm)
	u.svc.now = tick(testClock.Add(time.Hour))
	last := maxSummaryTurns + 49
	seedTurns(t, u, 0, last)
	for range 3 { // the third finds nothing left
		if err := u.svc.summarize(context.Background(), summaryConv, "", last); err != nil {
			t.Fatal(err)
		}
	}
	sums := u.store.byType(DocSummary)
	want := []string{fmt.Sprintf("0-%d", maxSummaryTurns-1), fmt.Sprintf("%d-%d", maxSummaryTurns, last)}
	if len(sums) != 2 || sums[0].Meta.TurnRange != want[0] || sums[1].Meta.TurnRange != want[1] {
		t.Fatalf("summaries %+v, want ranges %v", sums, want)
	}
	checkTranscript(t, llm.calls()[1], maxSummaryTurns, last)
}

// TestSummaryFailures: an empty or failing answer, or a store that cannot
// list, stores nothing and says why.
func TestSummaryFailures(t *testing.T) {
	cases := []struct {
		name  string
		reply reply
		emb   error
		want  string
	}{
		{"empty answer", reply{tokens: []string{"  "}}, nil, "empty summary"},
		{"embedding fails", reply{tokens: []string{"ok"}}, errors.New("embedder down"), "embedding with fake:words failed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u := newUnit(t, unitOptions(), &fakeLLM{replies: []reply{tc.reply}})
			seedTurns(t, u, 0, 3)
			u.svc.embedder = fakeEmbedder{err: tc.emb}
			err := u.svc.summarize(context.Background(), summaryConv, "", 3)
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(u.store.byType(DocSummary)) != 0 {
				t.Fatalf("err = %v, summaries %d", err, len(u.store.byType(DocSummary)))
			}
		})
	}
}

// TestSummariesFollowTurnsNotTheClock: with the clock stepped back between
// summaries (an NTP correction), each summary still starts after the one
// that covers the latest turns, not after the one stamped newest.
func TestSummariesFollowTurnsNotTheClock(t *testing.T) {
	llm := &fakeLLM{replies: []reply{{tokens: []string{"one"}}, {tokens: []string{"two"}}, {tokens: []string{"three"}}}}
	u := newUnit(t, unitOptions(), llm)
	var mu sync.Mutex
	back := testClock.Add(time.Hour)
	u.svc.now = func() time.Time { // each call an hour earlier than the last
		mu.Lock()
		defer mu.Unlock()
		back = back.Add(-time.Hour)
		return back
	}
	seedTurns(t, u, 0, 15)
	for _, last := range []int{7, 11, 15} {
		if err := u.svc.summarize(context.Background(), summaryConv, "", last); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, s := range u.store.byType(DocSummary) {
		got = append(got, fmt.Sprintf("%s#%d", s.Meta.TurnRange, *s.Meta.SummaryIndex))
	}
	slices.Sort(got)
	if want := []string{"0-7#0", "12-15#2", "8-11#1"}; !slices.Equal(got, want) {
		t.Fatalf("summaries %v, want %v", got, want)
	}
}

// TestSummaryDropsTurnDeletedMeanwhile: a turn forgotten (a redaction,
// `!ada forget me`, DELETE …/turns/…) while the model is summarising it
// does not come back in the summary: the deletion looked for summaries
// covering the turn before this one was stored. The summary is made again
// from the turns that remain.
func TestSummaryDropsTurnDeletedMeanwhile(t *testing.T) {
	llm := &fakeLLM{}
	u := newUnit(t, unitOptions(), llm)
	u.svc.now = tick(testClock.Add(time.Hour))
	seedTurns(t, u, 0, 3)
	var gone Document
	for _, d := range u.store.byType(DocTurn) {
		if d.Text == "turn-002" {
			gone = d
		}
	}
	llm.replies = []reply{
		{tokens: []string{"Summary quoting turn-002."}, before: func() {
			if _, err := u.store.Apply(context.Background(), Change{Delete: []string{gone.ID}}); err != nil {
				t.Error(err)
			}
		}},
		{tokens: []string{"Summary without it."}},
	}
	if err := u.svc.summarize(context.Background(), summaryConv, "", 3); err != nil {
		t.Fatal(err)
	}
	for _, s := range u.store.byType(DocSummary) {
		if strings.Contains(s.Text, "turn-002") {
			t.Fatalf("a summary of a turn deleted meanwhile was stored: %q (%s)", s.Text, s.Meta.TurnRange)
		}
	}
	sums := u.store.byType(DocSummary)
	if len(sums) != 1 || sums[0].Text != "Summary without it." || sums[0].Meta.TurnRange != "0-3" {
		t.Fatalf("summaries %+v, want one made again without the deleted turn", sums)
	}
	if calls := llm.calls(); len(calls) != 2 || strings.Contains(calls[1].Messages[len(calls[1].Messages)-1].Content, "turn-002") {
		t.Fatalf("the second summary request still held the deleted turn: %d calls", len(calls))
	}
}
