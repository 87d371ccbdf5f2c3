package core_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
)

// TestMemorySearchFindsTheTimeAMemoryMeant: three memories about the
// pottery class, as relevant to the question, written weeks apart; the
// oldest (least recent, so last without times) says "yesterday", written
// on 14 October. A question naming 13 October, or the month, finds it
// first in the memory search (the API's and MCP's), the page's search and
// the chat's memories, and explain says which time matched. Without a time,
// or with one most of them match ("this month"), the newest ranks first.
func TestMemorySearchFindsTheTimeAMemoryMeant(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	clock := time.Date(2026, 10, 14, 9, 0, 0, 0, time.UTC)
	svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}, Now: func() time.Time { return clock }}, core.DefaultOptions())
	t.Cleanup(svc.Close)
	said := "Sam made a bowl at the pottery class yesterday."
	for _, m := range []struct {
		at   time.Time
		text string
	}{
		{clock, said},
		{clock.AddDate(0, 0, 20), "Sam made a bowl at the pottery class, a blue one."},
		{clock.AddDate(0, 0, 40), "Sam made a bowl at the pottery class, a green one."},
	} {
		clock = m.at
		if _, err := svc.CreateMemory(ctx, core.MemoryInput{Text: m.text}); err != nil {
			t.Fatal(err)
		}
	}
	clock = time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	first := func(how, q string) (string, *core.Explanation) {
		t.Helper()
		var items []core.Memory
		switch how {
		case "search":
			page, err := svc.MemoryPage(ctx, core.MemoryQuery{Text: q, Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			items = page.Items
		case "page":
			res, err := svc.BrowseMemories(ctx, core.Browse{Text: q, Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			items = res.Items
		case "chat":
			p, err := svc.DebugPrompt(ctx, core.ChatRequest{Prompt: q, UserTimestamp: clock})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Used.Memories) == 0 {
				t.Fatalf("%s %q: no memories", how, q)
			}
			return p.Used.Memories[0].Text, p.Used.Memories[0].Explain
		}
		if len(items) != 3 {
			t.Fatalf("%s %q: %d memories, want 3", how, q, len(items))
		}
		return items[0].Text, items[0].Explain
	}
	for _, how := range []string{"search", "page", "chat"} {
		for q, want := range map[string]string{
			"What did Sam make at the pottery class on 13 October?": `says "yesterday" (2026-10-13), overlapping the prompt's "on 13 October" (13 October, any year)`,
			"What did Sam make at the pottery class last month?":    `written on 2026-10-14, in the prompt's "last month" (2026-10-01 to 2026-10-31)`,
		} {
			text, ex := first(how, q)
			if text != said || ex == nil || ex.TimeMatch != want || ex.TimeBonus == nil || *ex.TimeBonus <= 0 {
				t.Errorf("%s %q: first %q %+v, want %q with time_match %q", how, q, text, ex, said, want)
			}
		}
		if text, ex := first(how, "What did Sam make at the pottery class?"); !strings.Contains(text, "green") || ex == nil || ex.TimeMatch != "" || ex.TimeBonus != nil {
			t.Errorf("%s, no time: first %q %+v, want the newest without a time match", how, text, ex)
		}
		// Two of the three were written this month: a time most candidates
		// match tells them no further apart, so none gets the bonus.
		if text, ex := first(how, "What did Sam make at the pottery class this month?"); !strings.Contains(text, "green") || ex == nil || ex.TimeMatch != "" || ex.TimeBonus != nil {
			t.Errorf("%s, this month: first %q %+v, want the newest without a time bonus", how, text, ex)
		}
	}
}
