package main

import (
	"encoding/json"
	"net/url"
	"testing"

	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestRecallLastWeekOverHTTP: over the API, in a room's time zone, a
// conversation talks about shipping the release twice, weeks apart, then
// about other things. Asked a week after "let's ship the release on
// Friday" what was decided about shipping last week, the prompt recalls
// that turn, explained by the time it was written.
func TestRecallLastWeekOverHTTP(t *testing.T) {
	ada, llm, _ := startChatAda(t, "ollama", map[string]string{"RAG_DEBUG": "true", "RAG_AUTO_MEMORY": "false"})
	said := "Let's ship the release on Friday."
	conv := ""
	for _, turn := range []struct{ at, text string }{
		{"2026-02-16T10:00:00+01:00", "Shipping the release was slow."},
		{"2026-03-02T10:00:00+01:00", said},
		{"2026-03-10T10:00:00+01:00", "The weather is grey."},
		{"2026-03-11T10:00:00+01:00", "The garden needs rain."},
	} {
		llm.Script(llmtest.Reply{Tokens: []string{"Noted."}})
		body := map[string]any{"prompt": turn.text, "user_timestamp": turn.at, "timezone": "Europe/Berlin"}
		if conv != "" {
			body["conversation_id"] = conv
		}
		var r chatResponse
		if st := ada.call("POST", "/v1/chat", body, &r); st != 200 {
			t.Fatalf("chat %q: %d", turn.text, st)
		}
		conv = r.ConversationID
	}
	q := url.Values{"prompt": {"What did we decide about shipping the release last week?"}, "conversation_id": {conv},
		"user_timestamp": {"2026-03-12T09:00:00+01:00"}, "timezone": {"Europe/Berlin"}, "turns_k": {"2"}, "recall_k": {"1"}}
	var dbg struct {
		Used struct {
			Turns []struct {
				Text    string          `json:"text"`
				Reason  string          `json:"reason"`
				Explain json.RawMessage `json:"explain"`
			} `json:"turns"`
		} `json:"used_context"`
	}
	if st := ada.call("GET", "/v1/debug/prompt?"+q.Encode(), nil, &dbg); st != 200 {
		t.Fatal(st)
	}
	var recalled []string
	for _, tu := range dbg.Used.Turns {
		if tu.Reason == "recalled" {
			recalled = append(recalled, tu.Text)
			var e struct {
				TimeMatch string `json:"time_match"`
			}
			if err := json.Unmarshal(tu.Explain, &e); err != nil || e.TimeMatch == "" {
				t.Errorf("recalled %q without a time match: %s", tu.Text, tu.Explain)
			}
		}
	}
	if len(recalled) != 1 || recalled[0] != said {
		t.Fatalf("recalled %q, want only %q", recalled, said)
	}
	var d struct{ Detail string }
	if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "hi", "timezone": "Mars/Olympus"}, &d); st != 400 {
		t.Errorf("an unknown time zone: %d %q, want 400", st, d.Detail)
	}
}
