package core_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// TestRecallFindsTheTimeATurnMentions: three turns about the pottery class,
// equally relevant, on three different weeks. Only one is about last
// weekend, and says so relative to its own time ("yesterday", written on the
// Monday after). Asked on Thursday what happened last weekend, the prompt
// recalls that turn first, and its explanation says which time matched.
func TestRecallFindsTheTimeATurnMentions(t *testing.T) {
	ctx := context.Background()
	svc := newServiceWith(t, core.DefaultOptions())
	conv := core.NewConversationID()
	monday := time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC) // after Sunday 1 March
	said := "The pottery class was yesterday, I made a bowl."
	var turns []core.ImportedTurn
	add := func(at time.Time, role, text string) {
		turns = append(turns, core.ImportedTurn{Role: role, Text: text, Time: at})
	}
	add(monday.AddDate(0, 0, -14), "user", "The pottery class was fun, I made a bowl.")
	add(monday.AddDate(0, 0, -14).Add(time.Minute), "assistant", "Nice.")
	add(monday, "user", said)
	add(monday.Add(time.Minute), "assistant", "Lovely.")
	add(monday.AddDate(0, 0, 14), "user", "The pottery class was long, I made a bowl.")
	add(monday.AddDate(0, 0, 14).Add(time.Minute), "assistant", "Good.")
	for i := range 4 {
		add(monday.AddDate(0, 0, 21).Add(time.Duration(i)*time.Minute), "user", "The weather is grey today.")
	}
	if _, err := svc.ImportTurns(ctx, conv, turns); err != nil {
		t.Fatal(err)
	}
	thursday := monday.AddDate(0, 0, 3)
	ask := func(prompt string) []core.ContextItem {
		p, err := svc.DebugPrompt(ctx, core.ChatRequest{Prompt: prompt, ConversationID: conv,
			RecallK: intPtr(1), TurnsK: intPtr(2), UserTimestamp: thursday})
		if err != nil {
			t.Fatal(err)
		}
		var recalled []core.ContextItem
		for _, it := range p.Used.Turns {
			if it.Reason == core.ReasonRecalled {
				recalled = append(recalled, it)
			}
		}
		return recalled
	}
	got := ask("What did I make at the pottery class last weekend?")
	if len(got) != 1 || got[0].Text != said {
		t.Fatalf("recalled %v, want only %q", got, said)
	}
	why := ""
	if e := got[0].Explain; e != nil {
		why = e.TimeMatch
	}
	if want := `says "yesterday" (2026-03-01), overlapping the prompt's "last weekend" (2026-02-28 to 2026-03-01)`; why != want {
		t.Errorf("time_match %q, want %q", why, want)
	}
	// Without a time, the three are as relevant: the first is recalled.
	if got := ask("What did I make at the pottery class?"); len(got) != 1 || got[0].Explain == nil ||
		got[0].Explain.TimeMatch != "" || strings.Contains(got[0].Text, "yesterday") {
		t.Errorf("no time asked: recalled %v, want one without a time match (not the yesterday turn)", got)
	}
}

// TestRecallAnswersWhen: asked when something happened, without naming a
// time, the turn that says when (its "yesterday" resolved when stored)
// ranks above an as relevant one that does not, and explain says why; the
// same question without "when" does not prefer it.
func TestRecallAnswersWhen(t *testing.T) {
	ctx := context.Background()
	svc := newServiceWith(t, core.DefaultOptions())
	conv := core.NewConversationID()
	monday := time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC)
	said := "I made a bowl at the pottery class yesterday."
	turns := []core.ImportedTurn{
		{Role: "user", Text: "I made a bowl at the pottery class.", Time: monday.AddDate(0, 0, -14)},
		{Role: "assistant", Text: "Nice.", Time: monday.AddDate(0, 0, -14).Add(time.Minute)},
		{Role: "user", Text: said, Time: monday},
		{Role: "assistant", Text: "Lovely.", Time: monday.Add(time.Minute)},
	}
	if _, err := svc.ImportTurns(ctx, conv, turns); err != nil {
		t.Fatal(err)
	}
	at := monday.AddDate(0, 0, 10)
	got, err := svc.RecallTurns(ctx, conv, "When did I make a bowl at the pottery class?", at, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Text != said {
		t.Fatalf("recalled %q, want %q first", recalledTexts(got), said)
	}
	ranked, err := svc.DebugPrompt(ctx, core.ChatRequest{Prompt: "When did I make a bowl at the pottery class?", ConversationID: conv,
		RecallK: intPtr(1), TurnsK: intPtr(0), UserTimestamp: at})
	if err != nil {
		t.Fatal(err)
	}
	why := ""
	for _, it := range ranked.Used.Turns {
		if it.Reason == core.ReasonRecalled && it.Explain != nil {
			why = it.Explain.TimeMatch
		}
	}
	if want := `says "yesterday" (2026-03-01), and the prompt asks when`; why != want {
		t.Errorf("time_match %q, want %q", why, want)
	}
	if got, err := svc.RecallTurns(ctx, conv, "Did I make a bowl at the pottery class?", at, 1); err != nil || len(got) != 1 || got[0].Text == said {
		t.Errorf("no when asked: recalled %q (%v), want the other turn first", recalledTexts(got), err)
	}
}

func recalledTexts(ts []core.RecalledTurn) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Text
	}
	return out
}
