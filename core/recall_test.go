package core_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

func intPtr(n int) *int { return &n }

// TestRecallBringsTheAnswerNextToTheQuestion: the turn holding the fact
// shares no word with the question; the turn before it, which asked for
// it, does. Recall finds that turn and brings its neighbour, marked as
// such, into the prompt.
func TestRecallBringsTheAnswerNextToTheQuestion(t *testing.T) {
	ctx := context.Background()
	svc := newServiceWith(t, core.DefaultOptions())
	conv := core.NewConversationID()
	day := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var turns []core.ImportedTurn
	add := func(role, text string) {
		turns = append(turns, core.ImportedTurn{Role: role, Text: text, Time: day.Add(time.Duration(len(turns)) * time.Minute)})
	}
	for i := range 6 {
		add("user", fmt.Sprintf("Shall we water the tomatoes on the balcony, round %d?", i))
		add("assistant", fmt.Sprintf("Yes, the tomatoes need water every morning, round %d.", i))
	}
	add("user", "What breed is the dog you adopted?")
	add("assistant", "A greyhound called Pierogi, he sleeps all day.")
	day = day.Add(7 * 24 * time.Hour)
	for i := range 6 {
		add("user", fmt.Sprintf("The invoice for March is number %d.", i))
		add("assistant", fmt.Sprintf("Filed invoice %d.", i))
	}
	if _, err := svc.ImportTurns(ctx, conv, turns); err != nil {
		t.Fatal(err)
	}
	p, err := svc.DebugPrompt(ctx, core.ChatRequest{Prompt: "Which breed is that adopted dog?", ConversationID: conv, RecallK: intPtr(1), TurnsK: intPtr(4)})
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, it := range p.Used.Turns {
		reasons[it.Text] = it.Reason
	}
	if got := reasons["What breed is the dog you adopted?"]; got != core.ReasonRecalled {
		t.Errorf("the question's turn: reason %q, want recalled; used turns %v", got, reasons)
	}
	answer := "A greyhound called Pierogi, he sleeps all day."
	if got := reasons[answer]; got != core.ReasonNeighbour {
		t.Errorf("the answer's turn: reason %q, want neighbour; used turns %v", got, reasons)
	}
	if !strings.Contains(p.Render(), answer) {
		t.Errorf("the answer is not in the prompt:\n%s", p.Render())
	}
}

// TestContextBudgetBoundsThePrompt: with a budget, the most relevant
// memories go in while they fit and the rest stay out of the prompt and
// of used_context; without one, every memory asked for goes in.
func TestContextBudgetBoundsThePrompt(t *testing.T) {
	ctx := context.Background()
	// Four long memories (about 450 tokens each), less and less relevant.
	// Their filler words differ, so that none refreshes another as a
	// near-duplicate.
	filler := func(topic string) string {
		words := make([]string, 300)
		for i := range words {
			words[i] = fmt.Sprintf("%s%d", topic, i)
		}
		return strings.Join(words, " ")
	}
	texts := []string{
		"harbour festival lanterns volunteers: " + filler("knit"),
		"harbour festival lanterns: " + filler("tax"),
		"harbour festival: " + filler("bike"),
		"harbour: " + filler("dough"),
	}
	prompt := "What does the harbour festival need: lanterns, volunteers?"
	for _, budget := range []int{0, 1200} {
		opts := core.DefaultOptions()
		opts.ContextBudget = budget
		opts.RelevanceFloor = 0 // long texts: the floor is not what is tested
		svc := newServiceWith(t, opts)
		for _, text := range texts {
			if _, err := svc.CreateMemory(ctx, core.MemoryInput{Text: text}); err != nil {
				t.Fatal(err)
			}
		}
		p, err := svc.DebugPrompt(ctx, core.ChatRequest{Prompt: prompt, MemoryK: intPtr(4)})
		if err != nil {
			t.Fatal(err)
		}
		rendered := p.Render()
		listed := map[string]bool{}
		for _, m := range p.Used.Memories {
			listed[m.Text] = true
		}
		for _, text := range texts {
			if in := strings.Contains(rendered, text); in != listed[text] {
				t.Errorf("budget %d: memory %.40q in the prompt %v, in used_context %v", budget, text, in, listed[text])
			}
		}
		if tokens := (len([]rune(rendered)) + 3) / 4; budget > 0 && tokens > budget {
			t.Errorf("budget %d: the prompt takes about %d tokens", budget, tokens)
		}
		switch {
		case budget == 0 && len(listed) != 4:
			t.Errorf("no budget: %d memories, want 4", len(listed))
		case budget > 0 && (len(listed) == 0 || len(listed) == 4):
			t.Errorf("budget %d: %d memories of 4, want some but not all", budget, len(listed))
		case budget > 0 && !listed[texts[0]]:
			t.Errorf("budget %d: the most relevant memory was left out", budget)
		}
	}
}

// TestRecallFloorIsEachTurnsOwn: the session bonus re-ranks only what is
// relevant. Turns of the session of a strongly relevant turn, but unrelated
// to the question themselves, are never recalled for their session's sake
// (they may come along as neighbours, marked so).
func TestRecallFloorIsEachTurnsOwn(t *testing.T) {
	ctx := context.Background()
	opts := core.DefaultOptions()
	svc := newServiceWith(t, opts)
	conv := core.NewConversationID()
	day := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	texts := []string{
		"Bartholomew the lighthouse keeper paints seagulls at dawn.",
		"Did you book the dentist for Tuesday?",
		"The printer jammed twice this morning.",
		"Remember to renew the parking permit.",
		"Our quarterly invoices are due on Friday.",
		"The cat knocked the plant off the shelf.",
		"Please water the basil before you leave.",
		"The train to Leeds was cancelled again.",
		"My sister adopted two goldfish.",
		"The bakery ran out of rye bread.",
		"We need more coffee filters.",
		"The meeting moved to the small room.",
	}
	var turns []core.ImportedTurn
	for i, text := range texts {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		turns = append(turns, core.ImportedTurn{Role: role, Text: text, Time: day.Add(time.Duration(i) * time.Minute)})
	}
	if _, err := svc.ImportTurns(ctx, conv, turns); err != nil {
		t.Fatal(err)
	}
	p, err := svc.DebugPrompt(ctx, core.ChatRequest{Prompt: "What does Bartholomew the lighthouse keeper paint?", ConversationID: conv,
		RecallK: intPtr(8), TurnsK: intPtr(2)})
	if err != nil {
		t.Fatal(err)
	}
	recalled := 0
	for _, it := range p.Used.Turns {
		if it.Reason != core.ReasonRecalled {
			continue
		}
		recalled++
		if it.Explain == nil || it.Explain.Relevance < opts.RelevanceFloor {
			t.Errorf("recalled below the floor (%v): %q, explain %+v", opts.RelevanceFloor, it.Text, it.Explain)
		}
	}
	if recalled == 0 {
		t.Errorf("the lighthouse keeper's turn was not recalled: %+v", p.Used.Turns)
	}
}
