package main

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestDeleteTurnCascades: deleting the turns of an exchange through the API
// deletes the automatic memory learned only from them (its history gives
// the client's reason) and rewrites the summary that covered them from the
// turns that remain, with the same range.
func TestDeleteTurnCascades(t *testing.T) {
	ada, llm, env := startChatAda(t, "ollama", map[string]string{"RAG_SUMMARY_EVERY_N": "2"})
	llm.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		switch {
		case r.Format != nil:
			if strings.Contains(r.Messages[len(r.Messages)-1].Content, "my locker code is 4471") {
				return llmtest.Reply{Tokens: []string{`{"facts":[{"text":"The user's locker code is 4471","importance":4,"replaces":[]}]}`}}, true
			}
			return llmtest.Reply{Tokens: []string{`{"facts":[]}`}}, true
		case isSummaryRequest(r):
			// A faithful summariser: it repeats the code if the transcript has it.
			if strings.Contains(r.Messages[1].Content, "4471") {
				return llmtest.Reply{Tokens: []string{"The user gave the locker code 4471."}}, true
			}
			return llmtest.Reply{Tokens: []string{"The user greeted the assistant."}}, true
		}
		return llmtest.Reply{}, false
	})
	var first, second core.ChatResult
	if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "my locker code is 4471"}, &first); st != 200 {
		t.Fatalf("chat: %d", st)
	}
	conv := first.ConversationID
	if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "hello there", "conversation_id": conv}, &second); st != 200 {
		t.Fatalf("chat: %d", st)
	}
	var mem memoryRecord
	waitFor(t, "the code memory", func() bool {
		for _, m := range listMemories(t, ada, "search=locker+code") {
			if strings.Contains(m.Text, "4471") {
				mem = m
				return true
			}
		}
		return false
	})
	summaryText := func() string {
		sums := documentsIn(t, env, core.Filter{Type: core.DocSummary, ConversationID: conv})
		if len(sums) != 1 {
			return ""
		}
		return sums[0].Meta.TurnRange + " " + sums[0].Text
	}
	waitFor(t, "the summary of turns 0-3", func() bool { return strings.Contains(summaryText(), "0-3 The user gave the locker code 4471") })

	reason := "the member redacted it"
	for _, id := range first.TurnIDs {
		path := fmt.Sprintf("/v1/conversations/%s/turns/%s?reason=%s", conv, id, url.QueryEscape(reason))
		if st := ada.call("DELETE", path, nil, nil); st != 200 {
			t.Fatalf("delete turn %s: %d", id, st)
		}
	}
	var hist historyList
	if st := ada.call("GET", "/v1/memory/"+mem.ID+"/history", nil, &hist); st != 200 {
		t.Fatalf("history: %d", st)
	}
	if last := hist.Items[len(hist.Items)-1]; last.Event != core.HistoryDelete || last.Reason != reason {
		t.Errorf("the memory's history should end with its deletion for %q: %+v", reason, hist.Items)
	}
	if st := ada.call("GET", "/v1/memory/"+mem.ID, nil, nil); st != 404 {
		t.Errorf("the memory learned only from the deleted turns answers %d, want 404", st)
	}
	waitFor(t, "the summary rewritten without the deleted turns", func() bool {
		return summaryText() == "0-3 The user greeted the assistant."
	})
	turns := documentsIn(t, env, core.Filter{Type: core.DocTurn, ConversationID: conv})
	if len(turns) != 2 {
		t.Errorf("the second exchange's 2 turns should remain, got %d", len(turns))
	}
}
