package core

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRoomRequest: a chat request's model reaches the LLM (empty: the
// client's own; one not in Options.Models is refused), and its reply chain is in the prompt, after the room's
// recent messages, and in used_context marked reply_chain; a chain over
// MaxReplyChain is refused.
func TestRoomRequest(t *testing.T) {
	llm := &fakeLLM{replies: []reply{{tokens: []string{"aye"}}, {tokens: []string{"plain"}}}}
	opts := unitOptions()
	opts.Models = []string{"big-model"}
	u := newUnit(t, opts, llm)
	when := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	req := ChatRequest{Prompt: "and what about it?", Model: "big-model",
		ContextMessages: []ContextMessage{{Sender: "bob", Text: "lunch at noon"}},
		ReplyChain:      []ContextMessage{{Sender: "alice", Text: "the ship sails at dawn", Timestamp: when}}}
	res, err := u.svc.Chat(context.Background(), req, func(Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := llm.requests[0].Model; got != "big-model" {
		t.Errorf("model = %q, want big-model", got)
	}
	sys := llm.requests[0].Messages[0].Content
	recent, chain := strings.Index(sys, "lunch at noon"), strings.Index(sys, "## Messages this one replies to\nalice: the ship sails at dawn")
	if recent < 0 || chain < recent {
		t.Errorf("the reply chain should follow the recent messages in the prompt:\n%s", sys)
	}
	if got := res.UsedContext.ReplyChain; len(got) != 1 || got[0].Reason != ReasonReplyChain ||
		got[0].Text != "alice: the ship sails at dawn" || !strings.HasPrefix(got[0].Timestamp, "2025-01-02T03:04:05") {
		t.Errorf("used_context reply_chain = %+v", got)
	}

	res, err = u.svc.Chat(context.Background(), ChatRequest{Prompt: "plain"}, func(Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if llm.requests[1].Model != "" || res.UsedContext.ReplyChain != nil || strings.Contains(llm.requests[1].Messages[0].Content, "replies to") {
		t.Errorf("without a model or chain: model %q, chain %+v", llm.requests[1].Model, res.UsedContext.ReplyChain)
	}

	if _, err := u.svc.Chat(context.Background(), ChatRequest{Prompt: "x", Model: "other-model"}, func(Event) error { return nil }); KindOf(err) != KindInvalid {
		t.Errorf("a model not allowed: %v, want invalid", err)
	}
	long := ChatRequest{Prompt: "x", ReplyChain: make([]ContextMessage, MaxReplyChain+1)}
	if _, err := u.svc.Chat(context.Background(), long, func(Event) error { return nil }); KindOf(err) != KindInvalid {
		t.Errorf("a chain over MaxReplyChain: %v, want invalid", err)
	}
}
