package main

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

type historyList struct {
	MemoryID string `json:"memory_id"`
	Items    []struct {
		MemoryID string `json:"memory_id"`
		Event    string `json:"event"`
		Text     string `json:"text"`
		Reason   string `json:"reason"`
		Metadata struct {
			Importance int `json:"importance"`
		} `json:"metadata"`
	} `json:"items"`
	Count int `json:"count"`
}

func (h historyList) events() string {
	var out []string
	for _, it := range h.Items {
		out = append(out, it.Event)
	}
	return strings.Join(out, " ")
}

func TestMemoryLifecycleCreateDedupPatchDeleteHistory(t *testing.T) {
	env := testEnv(t, nil)
	ada := startAda(t, "serve", env)

	var created memoryRecord
	if st := ada.call("POST", "/v1/memory", map[string]any{"text": "Sam's bike is a blue Peugeot", "importance": 2, "tags": []string{"bike"}}, &created); st != http.StatusCreated {
		t.Fatalf("create: status %d", st)
	}
	if created.Deduplicated == nil || *created.Deduplicated || created.Meta.ExpiresAt != nil {
		t.Fatalf("a new memory must say deduplicated false and expires_at null: %+v", created)
	}

	// The same fact again (other case and punctuation) refreshes it.
	var dup memoryRecord
	if st := ada.call("POST", "/v1/memory", map[string]any{"text": "sam's bike is a blue Peugeot.", "importance": 3}, &dup); st != http.StatusOK {
		t.Fatalf("repeated fact: status %d, want 200", st)
	}
	if dup.ID != created.ID || dup.Deduplicated == nil || !*dup.Deduplicated || dup.Meta.Importance != 3 {
		t.Fatalf("repeated fact = %+v, want id %s, deduplicated true, importance 3 (the higher)", dup, created.ID)
	}
	var list memoryList
	ada.call("GET", "/v1/memory", nil, &list)
	if list.Count != 1 {
		t.Fatalf("a repeated fact must not add a copy: %d memories", list.Count)
	}

	var got memoryRecord
	if st := ada.call("GET", "/v1/memory/"+created.ID, nil, &got); st != 200 || got.ID != created.ID || got.Text != "Sam's bike is a blue Peugeot" || got.Deduplicated != nil {
		t.Fatalf("GET: %d %+v", st, got)
	}

	expires := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	var patched memoryRecord
	st := ada.call("PATCH", "/v1/memory/"+created.ID, map[string]any{
		"text": "Sam's bike is a red Peugeot", "importance": 4, "expires_at": expires.Format(time.RFC3339)}, &patched)
	if st != 200 || patched.Text != "Sam's bike is a red Peugeot" || patched.Meta.Importance != 4 ||
		patched.Meta.ExpiresAt == nil || !patched.Meta.ExpiresAt.Equal(expires) || strings.Join(patched.Meta.Tags, ",") != "bike" {
		t.Fatalf("PATCH: %d %+v", st, patched)
	}
	// The new text is re-embedded: a search by it finds the memory.
	ada.call("GET", "/v1/memory?search=red+Peugeot+bike", nil, &list)
	if list.Count == 0 || list.Items[0].ID != created.ID {
		t.Fatalf("search by the patched text: %+v", list)
	}

	var hist historyList
	if st := ada.call("GET", "/v1/memory/"+created.ID+"/history", nil, &hist); st != 200 {
		t.Fatalf("history: status %d", st)
	}
	if hist.MemoryID != created.ID || hist.Count != 3 || hist.events() != "create refresh patch" {
		t.Fatalf("history = %q (count %d), want create refresh patch", hist.events(), hist.Count)
	}
	if hist.Items[2].Text != "Sam's bike is a red Peugeot" || hist.Items[2].Metadata.Importance != 4 {
		t.Fatalf("the patch entry must hold the memory after the change: %+v", hist.Items[2])
	}

	if st := ada.call("DELETE", "/v1/memory/"+created.ID, nil, nil); st != 200 {
		t.Fatalf("delete: %d", st)
	}
	var d detail
	if st := ada.call("GET", "/v1/memory/"+created.ID, nil, &d); st != http.StatusNotFound || !strings.Contains(d.Detail, "deleted") {
		t.Fatalf("GET after delete: %d %q, want 404 saying it was deleted", st, d.Detail)
	}
	if st := ada.call("PATCH", "/v1/memory/"+created.ID, map[string]any{"importance": 1}, &d); st != http.StatusNotFound {
		t.Fatalf("PATCH after delete: %d %q, want 404", st, d.Detail)
	}
	// The history outlives the memory, across a restart too.
	ada.stop()
	ada = startAda(t, "serve", env)
	if st := ada.call("GET", "/v1/memory/"+created.ID+"/history", nil, &hist); st != 200 || hist.events() != "create refresh patch delete" {
		t.Fatalf("history after delete: %d %q", st, hist.events())
	}
	if hist.Items[3].Reason == "" {
		t.Errorf("the delete entry should say why")
	}
	if st := ada.call("GET", "/v1/memory/doc-00000000-0000-4000-8000-000000000000/history", nil, &d); st != http.StatusNotFound {
		t.Fatalf("history of an unknown id: %d, want 404", st)
	}
}

func TestMemoryBadPatchIsRejectedAndChangesNothing(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, nil))
	var m memoryRecord
	ada.call("POST", "/v1/memory", map[string]any{"text": "The boiler is serviced every October", "importance": 3, "tags": []string{"house"}}, &m)
	path := "/v1/memory/" + m.ID
	for _, tc := range []struct {
		name, body, mention string
	}{
		{"importance 9", `{"importance": 9}`, "importance"},
		{"importance text", `{"importance": "high"}`, "importance"},
		{"blank text", `{"text": "  "}`, "text"},
		{"text not a string", `{"text": 5}`, "text"},
		{"bad expires_at", `{"expires_at": "next Tuesday"}`, "expires_at"},
		{"expires_at without zone", `{"expires_at": "2099-01-01T00:00:00"}`, "expires_at"},
		{"expires_at a number", `{"expires_at": 1893456000}`, "expires_at"},
		{"expires_at past", `{"expires_at": "2001-01-01T00:00:00Z"}`, "expires_at"},
		{"tags not an array", `{"tags": "house"}`, "tags"},
		{"21 tags", `{"tags": ["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r","s","t","u"]}`, "tags: at most 20"},
		{"a 65-character tag", `{"tags": ["house", "` + strings.Repeat("t", 65) + `"]}`, "tags[1]"},
		{"valid text, bad importance", `{"text": "The boiler is never serviced", "importance": 0}`, "importance"},
		{"nothing to change", `{}`, "at least one"},
		{"invalid JSON", `{"text": "x",`, "invalid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d detail
			if st := ada.call("PATCH", path, tc.body, &d); st != 400 || !strings.Contains(d.Detail, tc.mention) {
				t.Fatalf("status %d, detail %q; want 400 naming %q", st, d.Detail, tc.mention)
			}
		})
	}
	var after memoryRecord
	ada.call("GET", path, nil, &after)
	if after.Text != m.Text || after.Meta.Importance != 3 || after.Meta.ExpiresAt != nil || after.Meta.Timestamp != m.Meta.Timestamp || strings.Join(after.Meta.Tags, ",") != "house" {
		t.Fatalf("rejected patches changed the memory: before %+v, after %+v", m, after)
	}
	var hist historyList
	ada.call("GET", path+"/history", nil, &hist)
	if hist.events() != "create" {
		t.Fatalf("rejected patches were recorded: %q", hist.events())
	}
}

func TestMemoryExpiresAtHidesItOnceItPasses(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, nil))
	var d detail
	if st := ada.call("POST", "/v1/memory", map[string]any{"text": "x", "expires_at": "2001-01-01T00:00:00Z"}, &d); st != 400 || !strings.Contains(d.Detail, "expires_at") {
		t.Fatalf("expires_at in the past: %d %q, want 400 naming expires_at", st, d.Detail)
	}
	if st := ada.call("POST", "/v1/memory", map[string]any{"text": "x", "expires_at": "soon"}, &d); st != 400 || !strings.Contains(d.Detail, "expires_at") {
		t.Fatalf("unparsable expires_at: %d %q, want 400 naming expires_at", st, d.Detail)
	}

	var keep, brief memoryRecord
	ada.call("POST", "/v1/memory", map[string]any{"text": "Sam plays the cello in an orchestra"}, &keep)
	deadline := time.Now().Add(2 * time.Second)
	if st := ada.call("POST", "/v1/memory", map[string]any{"text": "Sam is at a cello workshop in Lyon today",
		"expires_at": deadline.Format(time.RFC3339Nano)}, &brief); st != http.StatusCreated || brief.Meta.ExpiresAt == nil {
		t.Fatalf("create with expiry: %d %+v", st, brief)
	}
	has := func(path string) bool {
		var list memoryList
		ada.call("GET", path, nil, &list)
		for _, it := range list.Items {
			if it.ID == brief.ID {
				return true
			}
		}
		return false
	}
	if !has("/v1/memory") || !has("/v1/memory?search=cello+workshop") {
		t.Fatal("before it expires, the memory must be listed and found")
	}
	for time.Now().Before(deadline.Add(10 * time.Second)) {
		if !has("/v1/memory") && !has("/v1/memory?search=cello+workshop") {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if time.Now().Before(deadline) {
		t.Fatal("the memory disappeared before its expires_at")
	}
	if has("/v1/memory") || has("/v1/memory?search=cello+workshop") {
		t.Fatal("an expired memory is still listed or found")
	}
	if st := ada.call("GET", "/v1/memory/"+brief.ID, nil, &d); st != http.StatusNotFound || !strings.Contains(d.Detail, "expired") {
		t.Fatalf("GET of an expired memory: %d %q, want 404 saying it expired", st, d.Detail)
	}
	var got memoryRecord
	if st := ada.call("GET", "/v1/memory/"+keep.ID, nil, &got); st != 200 {
		t.Fatalf("the memory without expiry must stay: %d", st)
	}
}

func TestMemoryLifecycleEndpointsAnswer503WhenRAGIsOff(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, map[string]string{"RAG_ENABLED": "false"}))
	id := "doc-00000000-0000-4000-8000-000000000000"
	for _, c := range []struct {
		method, path string
		body         any
	}{{"GET", "/v1/memory/" + id, nil}, {"PATCH", "/v1/memory/" + id, `{"importance":2}`}, {"GET", "/v1/memory/" + id + "/history", nil}} {
		var d detail
		if st := ada.call(c.method, c.path, c.body, &d); st != 503 || !strings.Contains(d.Detail, "RAG") {
			t.Errorf("%s %s: %d %q, want 503 naming RAG", c.method, c.path, st, d.Detail)
		}
	}
}
