package main

import (
	"strings"
	"testing"
)

// TestDeletedMemoryLeavesARecordWithoutItsWords: after DELETE, the memory's
// history still answers (200, not 404) with every change and the deletion
// with its reason, and none of its entries keeps the forgotten words; a
// search finds nothing; an id that never existed is 404.
func TestDeletedMemoryLeavesARecordWithoutItsWords(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, nil))
	var m struct {
		ID string `json:"id"`
	}
	if st := ada.call("POST", "/v1/memory", map[string]any{"text": "Sam's safe code is 9182 alpha", "tags": []string{"safe 9182"}}, &m); st != 201 {
		t.Fatalf("create: %d", st)
	}
	if st := ada.call("PATCH", "/v1/memory/"+m.ID, map[string]any{"text": "Sam's safe code is 9182 bravo"}, nil); st != 200 {
		t.Fatalf("patch: %d", st)
	}
	if st := ada.call("DELETE", "/v1/memory/"+m.ID, nil, nil); st != 200 && st != 204 {
		t.Fatalf("delete: %d", st)
	}
	var hist struct {
		Items []struct {
			Event    string         `json:"event"`
			Text     string         `json:"text"`
			Reason   string         `json:"reason"`
			Metadata map[string]any `json:"metadata"`
		} `json:"items"`
	}
	if st := ada.call("GET", "/v1/memory/"+m.ID+"/history", nil, &hist); st != 200 {
		t.Fatalf("history of the deleted memory: %d", st)
	}
	var events []string
	for _, h := range hist.Items {
		events = append(events, h.Event)
		if strings.Contains(h.Text, "9182") || strings.Contains(toJSON(h.Metadata), "9182") {
			t.Errorf("the %s entry keeps the forgotten words: %+v", h.Event, h)
		}
	}
	if got := strings.Join(events, ","); got != "create,patch,delete" || hist.Items[2].Reason == "" {
		t.Errorf("history %s, last reason %q; want create,patch,delete with a reason", got, hist.Items[len(hist.Items)-1].Reason)
	}
	var found struct {
		Items []any `json:"items"`
	}
	ada.call("GET", "/v1/memory?search=safe+code+9182", nil, &found)
	if len(found.Items) != 0 {
		t.Errorf("a search still finds the deleted memory: %v", found.Items)
	}
	if st := ada.call("GET", "/v1/memory/doc-00000000-0000-4000-8000-000000000000/history", nil, nil); st != 404 {
		t.Errorf("history of an id that never existed: %d, want 404", st)
	}
}
