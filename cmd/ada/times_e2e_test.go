package main

import (
	"regexp"
	"testing"
)

// TestRecentConversationsTimesLikeEveryAnswer: the timestamps of
// /v1/conversations/recent and of a memory's history are written as the
// docs/api.md says every time in an answer is: ISO 8601 with microseconds and an
// explicit offset.
func TestRecentConversationsTimesLikeEveryAnswer(t *testing.T) {
	ada, _, _ := startChatAda(t, "ollama", nil)
	if st := ada.call("POST", "/v1/chat", map[string]any{"prompt": "hello there"}, nil); st != 200 {
		t.Fatalf("chat: %d", st)
	}
	var recent []struct {
		Timestamp string `json:"timestamp"`
	}
	if st := ada.call("GET", "/v1/conversations/recent", nil, &recent); st != 200 || len(recent) != 1 {
		t.Fatalf("recent: %d %+v", st, recent)
	}
	iso := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}[+-]\d\d:\d\d$`)
	if ts := recent[0].Timestamp; !iso.MatchString(ts) {
		t.Errorf("conversation timestamp %q, want microseconds and an explicit offset like 2026-01-02T15:04:05.123456+00:00", ts)
	}
	var m struct {
		ID string `json:"id"`
	}
	ada.call("POST", "/v1/memory", map[string]any{"text": "Sam waters the basil on Sundays"}, &m)
	var hist struct {
		Items []struct {
			Timestamp string `json:"timestamp"`
		} `json:"items"`
	}
	if st := ada.call("GET", "/v1/memory/"+m.ID+"/history", nil, &hist); st != 200 || len(hist.Items) != 1 || !iso.MatchString(hist.Items[0].Timestamp) {
		t.Errorf("history: %d %+v, want one entry with microseconds and an explicit offset", st, hist)
	}
}
