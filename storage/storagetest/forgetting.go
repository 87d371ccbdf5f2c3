package storagetest

import (
	"context"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// testCorrectionChainForgotten: a memory corrected twice keeps its older
// versions' words in their history while the newest version lives (the
// spec: a retired memory is kept in its history); when the newest goes,
// every version's history keeps the records and reasons, and no words. A
// correction chain that was not forgotten is left as it was.
func testCorrectionChainForgotten(t *testing.T, s Backend) {
	ctx := context.Background()
	teller := ""
	correct := func(old core.Document, text string, at time.Time) core.Document {
		t.Helper()
		next := memory(text, at)
		next.Meta.UserID = teller
		next.Meta.Tags, next.Meta.Times = []string{text}, timesOf(text)
		c := core.Change{Put: []core.Document{next},
			History: []core.HistoryEntry{{MemoryID: next.ID, Event: core.HistoryCreate, Time: at, Text: next.Text, Meta: next.Meta}}}
		if old.ID != "" {
			c.Delete = []string{old.ID}
			c.History = append(c.History, core.HistoryEntry{MemoryID: old.ID, Event: core.HistoryRetire, Time: at,
				Text: old.Text, Meta: old.Meta, Reason: core.RetireReason(next.ID)})
		}
		if _, err := s.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
		return next
	}
	first := correct(core.Document{}, "Sam's pin is 1111", base)
	second := correct(first, "Sam's pin is 2222", base.Add(time.Minute))
	third := correct(second, "Sam's pin is 3333", base.Add(2*time.Minute))
	teller = "@kim:example.org" // Retired finds the versions a person told
	otherOld := correct(core.Document{}, "Kim's pin is 4444", base)
	otherNew := correct(otherOld, "Kim's pin is 5555", base.Add(time.Minute))

	if h, err := s.History(ctx, first.ID); err != nil || len(h) != 2 || h[1].Text != first.Text {
		t.Fatalf("a retired version's history while its correction lives: %+v %v", h, err)
	}
	gone := core.HistoryEntry{MemoryID: third.ID, Event: core.HistoryDelete, Time: base.Add(time.Hour), Meta: third.Meta, Reason: "asked"}
	if _, err := s.Apply(ctx, core.Change{Delete: []string{third.ID}, History: []core.HistoryEntry{gone}}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []core.Document{first, second, third} {
		h, err := s.History(ctx, m.ID)
		if err != nil || len(h) < 2 {
			t.Fatalf("history of %s after its newest version went: %+v %v", m.Text, h, err)
		}
		for _, e := range h {
			if e.Text != "" || len(e.Meta.Tags) != 0 || len(e.Meta.Times) != 0 {
				t.Errorf("%s's history keeps words after the newest version went: %+v", m.Text, e)
			}
		}
		if last := h[len(h)-1]; m.ID != third.ID && (last.Event != core.HistoryRetire || last.Reason == "") {
			t.Errorf("%s's retirement lost its record: %+v", m.Text, last)
		}
	}
	for _, m := range []core.Document{otherOld, otherNew} {
		h, err := s.History(ctx, m.ID)
		if err != nil || len(h) == 0 || h[0].Text != m.Text {
			t.Errorf("a chain nobody forgot lost its words: %+v %v", h, err)
		}
	}

	// Forgetting a person reaches a retired version whose newer memory
	// lives: Retired lists the versions that still hold words, with the
	// metadata that says whose they are, and ForgetHistory blanks them.
	if retired, err := s.Retired(ctx, core.ForgetRequest{Entity: "@sam:example.org"}); err != nil || len(retired) != 0 {
		t.Errorf("retired versions of someone else's = %+v, %v; want none", retired, err)
	}
	retired, err := s.Retired(ctx, core.ForgetRequest{Entity: "@kim:example.org"})
	if err != nil || len(retired) != 1 || retired[0].MemoryID != otherOld.ID || retired[0].Event != core.HistoryRetire ||
		retired[0].Reason != core.RetireReason(otherNew.ID) || retired[0].Meta.Scope != otherOld.Meta.Scope {
		t.Fatalf("retired versions with words = %+v, %v; want %s's only", retired, err, otherOld.Text)
	}
	// Forgetting in one room reads that room's retired versions only.
	if retired, err := s.Retired(ctx, core.ForgetRequest{Entity: "@kim:example.org", RoomID: "!elsewhere:example.org"}); err != nil || len(retired) != 0 {
		t.Errorf("retired versions of another room = %+v, %v; want none", retired, err)
	}
	if err := s.ForgetHistory(ctx, []string{otherOld.ID}); err != nil {
		t.Fatal(err)
	}
	if h, _ := s.History(ctx, otherOld.ID); len(h) != 2 || h[0].Text != "" || h[1].Text != "" || len(h[1].Meta.Tags) != 0 || len(h[1].Meta.Times) != 0 ||
		h[1].Reason != core.RetireReason(otherNew.ID) {
		t.Errorf("history after ForgetHistory = %+v", h)
	}
	if h, _ := s.History(ctx, otherNew.ID); len(h) != 1 || h[0].Text != otherNew.Text {
		t.Errorf("ForgetHistory reached the newer memory: %+v", h)
	}
	if retired, err := s.Retired(ctx, core.ForgetRequest{Entity: "@kim:example.org"}); err != nil || len(retired) != 0 {
		t.Errorf("retired versions with words after ForgetHistory = %+v, %v", retired, err)
	}
}
