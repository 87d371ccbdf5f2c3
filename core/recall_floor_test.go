package core_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// shipDecoys are about shipping, share more words with the question of
// TestRecallBelowFloorByTime than the decision does, and name no time of
// the week asked about.
var shipDecoys = []string{
	"We decided shipping waits for the security review.",
	"What did we decide about shipping labels?",
	"Did we decide on shipping the beta tomorrow?",
	"We decided about shipping: the docs go out next month.",
	"What about shipping the mobile app in three weeks?",
	"We decided shipping needs a green build first.",
	"Did we decide who is shipping the hotfix tomorrow?",
	"About shipping: we decided the release notes come first.",
	"What did we decide about shipping costs?",
	"We decided shipping the installer is Nadia's job.",
}

// TestRecallBelowFloorByTime: "let's ship on Friday", said on a Wednesday,
// shares one word with "what did we decide about shipping last week?"
// asked a week later, and is below the relevance floor; it is of the time
// the question names, so it is recalled, above ten turns about shipping
// from the week asked in (more than recall's k, each sharing more words
// with the question), and explain says why. The same turn is not recalled
// for a question of another time, nor when most turns that share a word
// with the question are of the time it names.
func TestRecallBelowFloorByTime(t *testing.T) {
	ctx := context.Background()
	said := "let's ship on Friday"
	wednesday := time.Date(2026, 3, 4, 12, 0, 0, 0, time.UTC)
	asked := wednesday.AddDate(0, 0, 7)
	story := func(decoys []string, decoysFrom time.Time) (*core.Service, string) {
		svc := newServiceWith(t, core.DefaultOptions())
		conv := core.NewConversationID()
		turns := []core.ImportedTurn{{Role: "user", Text: said, Time: wednesday}, {Role: "assistant", Text: "Noted.", Time: wednesday.Add(time.Minute)}}
		for i, text := range decoys {
			at := decoysFrom.Add(time.Duration(2*i) * time.Hour)
			turns = append(turns, core.ImportedTurn{Role: "user", Text: text, Time: at}, core.ImportedTurn{Role: "assistant", Text: "Noted.", Time: at.Add(time.Minute)})
		}
		turns = append(turns, core.ImportedTurn{Role: "user", Text: "How is the weather?", Time: asked.Add(-20 * time.Minute)},
			core.ImportedTurn{Role: "assistant", Text: "Grey.", Time: asked.Add(-19 * time.Minute)})
		slices.SortStableFunc(turns, func(a, b core.ImportedTurn) int { return a.Time.Compare(b.Time) })
		if _, err := svc.ImportTurns(ctx, conv, turns); err != nil {
			t.Fatal(err)
		}
		return svc, conv
	}
	recalled := func(svc *core.Service, conv, prompt string) (*core.ContextItem, []string) {
		p, err := svc.DebugPrompt(ctx, core.ChatRequest{Prompt: prompt, ConversationID: conv, TurnsK: intPtr(2), UserTimestamp: asked})
		if err != nil {
			t.Fatal(err)
		}
		var found *core.ContextItem
		var texts []string
		for _, it := range p.Used.Turns {
			if it.Reason == core.ReasonRecalled {
				texts = append(texts, it.Text)
				if it.Text == said {
					found = &it
				}
			}
		}
		return found, texts
	}
	// The decoys on the Monday and Tuesday of the week asked in.
	svc, conv := story(shipDecoys, asked.AddDate(0, 0, -2))
	got, texts := recalled(svc, conv, "What did we decide about shipping last week?")
	if got == nil {
		t.Fatalf("asked about last week, recalled %q: not %q", texts, said)
	}
	if e := got.Explain; e == nil || e.Relevance >= core.DefaultRelevanceFloor || !strings.Contains(e.TimeMatch, "below the relevance floor") {
		t.Errorf("explain %+v: want a relevance below the floor, and a time_match saying it was recalled below it", e)
	}
	if got, texts := recalled(svc, conv, "What did we decide about shipping this week?"); got != nil {
		t.Errorf("asked about this week, recalled %q", texts)
	}
	// Three decoys, in the week asked about too: that week tells nothing
	// apart, and the turn stays below the floor.
	svc, conv = story(shipDecoys[:3], wednesday.Add(2*time.Hour))
	if got, texts := recalled(svc, conv, "What did we decide about shipping last week?"); got != nil {
		t.Errorf("most turns about shipping of last week: recalled %q below the floor", texts)
	}
}
