package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core/llm/llmtest"
)

// A failed web search is logged without the user's query: not in words,
// not inside the search URL.
func TestWebSearchFailureLogsLeaveTheQueryOut(t *testing.T) {
	slow, _ := fakeSearXNG(t, 200, 5*time.Second)
	// want is the failure line's reason; a timeout has none (core reports
	// it to the model and logs only the DEBUG "specialist ran").
	cases := []struct{ name, url, want string }{
		{"unreachable", llmtest.ClosedURL(t), "could not be reached"},
		{"timeout", slow.URL, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ada, llm, _ := startChatAda(t, "ollama", map[string]string{"WEBSEARCH_URL": tc.url, "SPECIALIST_TIMEOUT_SECONDS": "1"})
			llm.Script(llmtest.Reply{Tokens: []string{`SPECIALIST_REQUEST[web_search:{"query": "zebrapox symptoms"}]`}},
				llmtest.Reply{Tokens: []string{"The search failed, sorry."}})
			var r chatResponse
			if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "what do I have?"}, &r); st != 200 {
				t.Fatalf("chat: %d", st)
			}
			waitLogLine(t, ada, "specialist ran")
			if tc.want != "" {
				line := waitLogLine(t, ada, "specialist failed")
				if !strings.Contains(line, tc.want) {
					t.Errorf("the failure line does not say what failed: %s", line)
				}
				if u := strings.TrimPrefix(tc.url, "http://"); !strings.Contains(line, u) {
					t.Errorf("the failure line should name the service %s: %s", u, line)
				}
			}
			if logs := ada.logs.String(); strings.Contains(strings.ToLower(logs), "zebrapox") {
				t.Fatalf("the user's query reached the logs:\n%s", logs)
			}
		})
	}
}
