package storagetest

import (
	"context"
	"slices"
	"testing"

	"github.com/ada-chat/ada/core"
)

// testLastSource: a memory dies with its last source, as core.Orphaned
// defines it, on every backend: it stays while one of the turns it was
// learned from is stored (a source never stored does not count), goes
// with the last one (with a history entry saying why), and is refused when
// none is stored, the documents of the same write counting as stored.
func testLastSource(t *testing.T, s Backend) {
	ctx := context.Background()
	conv := core.NewConversationID()
	t0, t1, t2, t3 := turn(conv, 0, "user", "I moved to Lisbon"), turn(conv, 1, "user", "and I love it"),
		turn(conv, 2, "user", "I have a dog"), turn(conv, 3, "user", "called Rex")
	ghost := core.NewDocID() // a turn never stored (pruned before an import, say)
	learn := func(text string, sources ...string) core.Document {
		m := memory(text, base)
		m.Meta.SourceIDs = sources
		return m
	}
	both := learn("The user lives in Lisbon", t0.ID, t1.ID)
	withGhost := learn("The user has a dog", t2.ID, ghost)
	other := learn("The dog is called Rex", t3.ID)
	put(t, s, t0, t1, t2, t3, both, withGhost, other)

	// Each step names the memories it expects gone, not core.Orphaned
	// (which the backends call): a wrong rule would pass its own check.
	mems := []core.Document{both, withGhost, other}
	reported := map[string]bool{}
	check := func(step string, gone ...core.Document) {
		t.Helper()
		for _, m := range mems {
			_, err := s.Get(ctx, m.ID)
			want := !slices.ContainsFunc(gone, func(g core.Document) bool { return g.ID == m.ID })
			if got := err == nil; got != want {
				t.Errorf("%s: memory %q stored = %v (%v), want %v", step, m.Text, got, err, want)
			}
			if !want && !reported[m.ID] {
				reported[m.ID] = true
				h, _ := s.History(ctx, m.ID)
				if len(h) != 1 || h[0].Event != core.HistoryDelete || h[0].Reason != core.SourcesGoneReason || h[0].Text != "" {
					t.Errorf("%s: history of %q = %+v", step, m.Text, h)
				}
			}
		}
	}
	del := func(d core.Document) {
		t.Helper()
		if err := s.Delete(ctx, d.ID, core.DocTurn); err != nil {
			t.Fatal(err)
		}
	}
	del(t0)
	check("one of two sources deleted")
	del(t2)
	check("the last stored source deleted", withGhost)
	del(t1)
	check("both sources deleted", withGhost, both)

	// Refused when none is stored; the same write's turns count.
	if err := s.Put(ctx, learn("Learned after the redaction", t1.ID, ghost)); core.KindOf(err) != core.KindNotFound {
		t.Errorf("a memory of deleted turns: %v, want not found", err)
	}
	t4 := turn(conv, 4, "user", "I play chess")
	if err := s.Put(ctx, learn("The user plays chess", t4.ID), t4); err != nil {
		t.Errorf("a memory written before its turn in one write: %v", err)
	}
}
