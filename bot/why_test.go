package bot

import (
	"testing"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
)

// TestDropWhy: the answer kept for `!ada why` is forgotten when its question
// or reply is redacted, or when a memory, turn or summary it quotes is
// deleted; anything else leaves it.
func TestDropWhy(t *testing.T) {
	answer := func() *lastAnswer {
		return &lastAnswer{questionEvent: "$q", replyEvent: "$r", question: "what is my PIN?",
			used: core.UsedContext{Memories: []core.ContextItem{{ID: "doc-mem"}}, Turns: []core.ContextItem{{ID: "doc-turn"}},
				Summaries: []core.ContextItem{{ID: "doc-sum"}}}}
	}
	tests := []struct {
		name    string
		event   id.EventID
		docs    []string
		dropped bool
	}{
		{"the question redacted", "$q", nil, true},
		{"the reply redacted", "$r", nil, true},
		{"a used memory deleted", "", []string{"doc-mem"}, true},
		{"a used turn deleted", "$other", []string{"doc-turn"}, true},
		{"a used summary deleted", "", []string{"doc-x", "doc-sum"}, true},
		{"another message redacted", "$other", nil, false},
		{"another memory deleted", "", []string{"doc-x"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt := &roomRuntime{lastAnswer: answer()}
			rt.dropWhy(tc.event, tc.docs...)
			if (rt.lastAnswer == nil) != tc.dropped {
				t.Fatalf("dropped = %v, want %v", rt.lastAnswer == nil, tc.dropped)
			}
		})
	}
}
