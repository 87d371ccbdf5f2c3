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
// Monday" is 16 March, not 9 March as UTC would have it.
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
}
