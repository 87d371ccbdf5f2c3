package core_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/llm/ollama"
	"github.com/ada-chat/ada/storage"
)

// TestSpeakerIsOneOfTheTurnsWords: in an API conversation whose client
// names each prompt's speaker (the request's speaker, as the bridge names
// a room member), a question about one of them recalls what they said in
// the first person, though it never says their name, above another
// speaker's turn that matches the question's other words better; the
// prompt shows the name once, before the words.
func TestSpeakerIsOneOfTheTurnsWords(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	opts := core.DefaultOptions()
	opts.AutoMemory, opts.SummaryEveryN = false, 0
	llm := ollama.New(ollama.Options{BaseURL: llmtest.New(t).URL(), Model: llmtest.ModelName})
	svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}, LLM: llm}, opts)
	t.Cleanup(svc.Close)

	conv := core.NewConversationID()
	say := func(who, text string) {
		t.Helper()
		req := core.ChatRequest{Prompt: text, ConversationID: conv, Store: true, Speaker: &core.Speaker{Name: who}}
		if _, err := svc.Chat(ctx, req, func(core.Event) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	said := "I love climbing cliffs."
	say("Priya", said)
	say("Tomasz", "I love, love painting.")
	for i := range 20 {
		say("Tomasz", fmt.Sprintf("The weather is mild today, round %d.", i))
	}
	svc.Wait()

	p, err := svc.DebugPrompt(ctx, core.ChatRequest{Prompt: "What does Priya love?", ConversationID: conv,
		RecallK: new(1), TurnsK: new(2)})
	if err != nil {
		t.Fatal(err)
	}
	var recalled []string
	for _, it := range p.Used.Turns {
		if it.Reason == core.ReasonRecalled {
			recalled = append(recalled, it.Text)
		}
	}
	if len(recalled) != 1 || recalled[0] != said {
		t.Fatalf("recalled %q, want Priya's own words %q", recalled, said)
	}
	rendered := p.Render()
	if !strings.Contains(rendered, "Priya: "+said) || strings.Contains(rendered, "Priya: Priya:") {
		t.Errorf("the prompt must show Priya's words once, after her name:\n%s", rendered)
	}
}
