package chroma

import (
	"context"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/storagetest"
)

// TestOpenScrubsTheWordsOfOldCorrections: a store written by an earlier
// version quoted the newer memory's text in a correction's reason and kept
// the older version's words after the newer memory was deleted. Open keeps
// the reason's id and drops its words, and blanks the words of the versions
// whose newer memory is gone; a correction whose newer memory lives keeps
// its older version's words.
func TestOpenScrubsTheWordsOfOldCorrections(t *testing.T) {
	ctx := context.Background()
	url := storagetest.StartChroma(t).URL + "?database=scrub"
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	a1, a2 := testMemory("Sam's pin is 1111", at), testMemory("Sam's pin is 2222", at)
	b1, b2 := testMemory("Kim's pin is 4444", at), testMemory("Kim's pin is 5555", at)
	entry := func(d core.Document, event string, n int, reason string) core.HistoryEntry {
		d.Meta.Tags = []string{"pin"}
		return core.HistoryEntry{MemoryID: d.ID, Event: event, Time: at.Add(time.Duration(n) * time.Second), Text: d.Text, Meta: d.Meta, Reason: reason}
	}
	// As the earlier version wrote them, one Apply at a time.
	for _, h := range []core.HistoryEntry{
		entry(a1, core.HistoryCreate, 0, ""), entry(a2, core.HistoryCreate, 1, ""),
		entry(a1, core.HistoryRetire, 1, "replaced by "+a2.ID+": "+a2.Text), entry(a2, core.HistoryDelete, 2, "deleted on request"),
		entry(b1, core.HistoryCreate, 0, ""), entry(b2, core.HistoryCreate, 1, ""),
		entry(b1, core.HistoryRetire, 1, "replaced by "+b2.ID+": "+b2.Text),
	} {
		if err := s.appendHistory(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	if h, _ := s.History(ctx, a1.ID); len(h) != 2 || h[0].Text == "" {
		t.Fatalf("the earlier version's state was not reproduced: %+v", h)
	}

	s, err = Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		old, newer core.Document
		forgotten  bool
	}{{a1, a2, true}, {b1, b2, false}} {
		h, err := s.History(ctx, c.old.ID)
		if err != nil || len(h) != 2 {
			t.Fatalf("history of %s: %+v %v", c.old.Text, h, err)
		}
		if h[1].Reason != core.RetireReason(c.newer.ID) {
			t.Errorf("%s's retire reason = %q", c.old.Text, h[1].Reason)
		}
		if !c.forgotten && h[1].Text != c.old.Text {
			t.Errorf("%s's retire entry lost its words in the rewrite: %q", c.old.Text, h[1].Text)
		}
		for _, e := range h {
			if blank := e.Text == "" && len(e.Meta.Tags) == 0; blank != c.forgotten {
				t.Errorf("%s: %s entry %+v; forgotten = %v", c.old.Text, e.Event, e, c.forgotten)
			}
		}
	}
}
