package main

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"strings"
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

// TestMemorySearchNamesADateOverHTTP: over the API, of three memories about
// the release, the one that names the day it shipped ("on 13 October
// 2025", kept in its times when stored) comes first when the search names
// that day, and explain's time_match says so. (Its words rank it first
// too; core's TestMemorySearchFindsTheTimeAMemoryMeant shows the ranking.)
// timedHits is a memory search's answer, as far as its times go.
type timedHits struct {
	Items []struct {
		Text    string `json:"text"`
		Explain struct {
			TimeMatch string `json:"time_match"`
		} `json:"explain"`
	} `json:"items"`
}

func TestMemorySearchNamesADateOverHTTP(t *testing.T) {
	ada, _, _ := startChatAda(t, "ollama", map[string]string{"RAG_AUTO_MEMORY": "false"})
	said := "The release shipped on 13 October 2025 after the review."
	for _, text := range []string{said, "The release shipped after the review, a good one.", "The release shipped after the review, at last."} {
		if st := ada.call("POST", "/v1/memory", map[string]any{"text": text}, nil); st != 201 && st != 200 {
			t.Fatalf("POST /v1/memory %q: %d", text, st)
		}
	}
	var page timedHits
	q := url.Values{"search": {"What shipped on 13 October 2025?"}, "limit": {"3"}}
	if st := ada.call("GET", "/v1/memory?"+q.Encode(), nil, &page); st != 200 {
		t.Fatal(st)
	}
	want := `says "on 13 October 2025" (2025-10-13), overlapping the prompt's "on 13 October 2025" (2025-10-13)`
	if len(page.Items) != 3 || page.Items[0].Text != said || page.Items[0].Explain.TimeMatch != want {
		t.Fatalf("search: %+v, want %q first with time_match %q", page.Items, said, want)
	}
	// The memory page's search shows the same: the time's bonus and why.
	st, body := ada.send("", "GET", "/ui/memories?"+url.Values{"q": {"What shipped on 13 October 2025?"}}.Encode(), nil)
	if shown := html.UnescapeString(string(body)); st != 200 || !strings.Contains(shown, ", time ") || !strings.Contains(shown, want) {
		t.Fatalf("memory page: %d, want the time bonus with %q\n%s", st, want, body)
	}
}

// TestMCPSearchMemoryNamesADate: MCP's search_memory ranks a memory of the
// date the query names first, with the time in its explain, as the API does.
func TestMCPSearchMemoryNamesADate(t *testing.T) {
	m := startMCPStdio(t)
	defer m.close()
	said := "The release shipped on 13 October 2025 after the review."
	for i, text := range []string{"The release shipped after the review, a good one.", said, "The release shipped after the review, at last."} {
		args, _ := json.Marshal(map[string]any{"text": text})
		if got := m.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add_memory","arguments":%s}}`, 10+i, args)); strings.Contains(got, `"isError":true`) {
			t.Fatalf("add_memory %q: %s", text, got)
		}
	}
	got := m.send(`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"search_memory","arguments":{"query":"What shipped on 13 October 2025?","limit":3}}}`)
	var answer struct {
		Result struct {
			StructuredContent timedHits `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(got), &answer); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	items := answer.Result.StructuredContent.Items
	if len(items) != 3 || items[0].Text != said || !strings.Contains(items[0].Explain.TimeMatch, "(2025-10-13)") {
		t.Fatalf("search_memory: %s", got)
	}
}
