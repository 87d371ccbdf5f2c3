package core

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestExtractionPromptCarriesTheDate: the exchange's time, in the room's
// time zone, and the date its "next Monday" means there are in the
// extraction prompt, with the instruction to write absolute dates. Written
// at 05:00 on Monday 9 March in Tokyo (Sunday evening in UTC), "next
// Monday" is 16 March, not 9 March as UTC would have it. The fact stored
// keeps the date it states in its times.
func TestExtractionPromptCarriesTheDate(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	opts := unitOptions()
	opts.AutoMemory = true
	u := newUnit(t, opts, &fakeLLM{replies: []reply{
		{tokens: []string{"Good luck!"}},
		{tokens: []string{`{"facts":[{"text":"Sam starts the new job on 16 March 2026","importance":4,"replaces":[],"about":"Sam"}]}`}},
	}})
	req := ChatRequest{Prompt: "I start the new job next Monday.", Store: true, Speaker: &Speaker{Name: "Sam"},
		UserTimestamp: time.Date(2026, 3, 8, 20, 0, 0, 0, time.UTC), Location: tokyo}
	if _, err := u.svc.Chat(context.Background(), req, func(Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	u.svc.Wait() // the extraction
	u.llm.mu.Lock()
	defer u.llm.mu.Unlock()
	if len(u.llm.requests) != 2 {
		t.Fatalf("%d model calls, want the answer and the extraction", len(u.llm.requests))
	}
	msgs := u.llm.requests[1].Messages
	if !strings.Contains(msgs[0].Content, "State times as absolute dates") {
		t.Errorf("the instructions do not ask for absolute dates:\n%s", msgs[0].Content)
	}
	for _, want := range []string{"The exchange was written on Monday 9 March 2026, 05:00 JST.",
		`"next Monday" means Monday 16 March 2026.`} {
		if !strings.Contains(msgs[1].Content, want) {
			t.Errorf("the extraction prompt lacks %q:\n%s", want, msgs[1].Content)
		}
	}
	// The fact keeps the date it states, for a search naming it.
	mems := u.store.byType(DocMemory)
	if len(mems) != 1 || len(mems[0].Meta.Times) != 1 || mems[0].Meta.Times[0].Text != "on 16 March 2026" ||
		!mems[0].Meta.Times[0].Start.Equal(time.Date(2026, 3, 16, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("the stored fact's times: %+v, want 16 March 2026", mems)
	}
}

// TestMemoryKeepsItsTimes: a memory keeps the times its text mentions,
// resolved against when it was written (the clock, 14 March 2026), and a
// corrected text gets the times of the new words.
func TestMemoryKeepsItsTimes(t *testing.T) {
	u := newUnit(t, unitOptions(), &fakeLLM{})
	ctx := context.Background()
	m, err := u.svc.CreateMemory(ctx, MemoryInput{Text: "Sam moved to Lisbon last month"})
	if err != nil {
		t.Fatal(err)
	}
	times := func() []TimeMention {
		d, err := u.store.Get(ctx, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		return d.Meta.Times
	}
	if got := times(); len(got) != 1 || got[0].Text != "last month" || !got[0].Start.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("times %+v, want last month = February 2026", got)
	}
	text := "Sam moved to Porto yesterday"
	if _, err := u.svc.PatchMemory(ctx, m.ID, MemoryPatch{Text: &text}); err != nil {
		t.Fatal(err)
	}
	if got := times(); len(got) != 1 || got[0].Text != "yesterday" || !got[0].Start.Equal(time.Date(2026, 3, 13, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("after the correction: times %+v, want yesterday = 13 March 2026", got)
	}
}
