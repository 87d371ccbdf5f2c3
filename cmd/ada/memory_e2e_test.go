package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// memoryRecord is the Memory API record as the tests read it.
type memoryRecord struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	Meta struct {
		Importance     int        `json:"importance"`
		Scope          string     `json:"scope"`
		Entity         *string    `json:"entity"`
		Tags           []string   `json:"tags"`
		Timestamp      string     `json:"timestamp"`
		ExpiresAt      *time.Time `json:"expires_at"`
		SourceIDs      []string   `json:"source_ids"`
		ConversationID *string    `json:"conversation_id"`
	} `json:"meta"`
	Score        *float64 `json:"score"`
	Similarity   *float64 `json:"similarity"`
	Deduplicated *bool    `json:"deduplicated"`
}

type memoryList struct {
	Items []memoryRecord `json:"items"`
	Count int            `json:"count"`
}

type detail struct {
	Detail string `json:"detail"`
}

func TestMemorySurvivesRestartAndIsFoundByOtherWording(t *testing.T) {
	env := testEnv(t, nil)
	ada := startAda(t, "serve", env)
	var created memoryRecord
	if st := ada.call("POST", "/v1/memory", map[string]any{"text": "Sam drinks strong black coffee every morning", "importance": 4}, &created); st != http.StatusCreated {
		t.Fatalf("create: status %d", st)
	}
	if !strings.HasPrefix(created.ID, "doc-") || created.Meta.Importance != 4 || created.Meta.Scope != "global" || created.Meta.Entity != nil {
		t.Fatalf("created = %+v", created)
	}
	ada.call("POST", "/v1/memory", map[string]any{"text": "The office closes at six on Fridays"}, nil)
	ada.stop()

	ada = startAda(t, "serve", env)
	var found memoryList
	ada.call("GET", "/v1/memory?search=what+coffee+does+Sam+like", nil, &found)
	if found.Count == 0 || found.Items[0].ID != created.ID {
		t.Fatalf("after restart the coffee memory must rank first: %+v", found)
	}
	if found.Items[0].Score == nil || found.Items[0].Similarity == nil {
		t.Fatal("search results must carry score and similarity")
	}
	var del map[string]any
	if st := ada.call("DELETE", "/v1/memory/"+created.ID, nil, &del); st != 200 || del["ok"] != true || del["id"] != created.ID {
		t.Fatalf("delete: %d %v", st, del)
	}
	ada.call("GET", "/v1/memory?search=coffee+Sam", nil, &found)
	for _, it := range found.Items {
		if it.ID == created.ID {
			t.Fatal("a deleted memory was found")
		}
	}
	if st := ada.call("DELETE", "/v1/memory/"+created.ID, nil, nil); st != http.StatusNotFound {
		t.Fatalf("second delete: %d, want 404", st)
	}
}

func TestEntityMemoriesStayInTheirScope(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, nil))
	var scoped memoryRecord
	ada.call("POST", "/v1/memory", map[string]any{"text": "project alpha deadline is in March", "entity": "alpha"}, &scoped)
	if scoped.Meta.Scope != "entity:alpha" || scoped.Meta.Entity == nil || *scoped.Meta.Entity != "alpha" {
		t.Fatalf("entity memory = %+v", scoped.Meta)
	}
	var list memoryList
	ada.call("GET", "/v1/memory?search=alpha+deadline", nil, &list)
	if list.Count != 0 {
		t.Fatalf("an unscoped search found an entity memory: %+v", list.Items)
	}
	ada.call("GET", "/v1/memory?search=alpha+deadline&entity=alpha", nil, &list)
	if list.Count != 1 || list.Items[0].ID != scoped.ID {
		t.Fatalf("the scoped search must find it: %+v", list)
	}
	ada.call("GET", "/v1/memory?entity=alpha", nil, &list)
	if list.Count != 1 {
		t.Fatalf("listing with entity: %+v", list)
	}
}

func TestMemoryBadInputIsRejectedAndWritesNothing(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, map[string]string{"MAX_BODY_BYTES": "1048576"}))
	big := `{"text":"` + strings.Repeat("a", 2<<20) + `"}`
	tests := []struct {
		name, method, path string
		body               any
		status             int
		mention            string
	}{
		{"invalid JSON", "POST", "/v1/memory", `{"text": "x",`, 400, "invalid JSON"},
		{"not an object", "POST", "/v1/memory", `[1,2]`, 400, "JSON object"},
		{"empty body", "POST", "/v1/memory", ``, 400, "JSON object"},
		{"missing text", "POST", "/v1/memory", `{"importance": 3}`, 400, "text"},
		{"blank text", "POST", "/v1/memory", `{"text": "   "}`, 400, "text"},
		{"text not a string", "POST", "/v1/memory", `{"text": 5}`, 400, "text"},
		{"importance 0", "POST", "/v1/memory", `{"text": "x", "importance": 0}`, 400, "importance"},
		{"importance 6", "POST", "/v1/memory", `{"text": "x", "importance": 6}`, 400, "importance"},
		{"importance high", "POST", "/v1/memory", `{"text": "x", "importance": "high"}`, 400, "importance"},
		{"importance 2.5", "POST", "/v1/memory", `{"text": "x", "importance": 2.5}`, 400, "importance"},
		{"bad memory_type", "POST", "/v1/memory", `{"content": "x", "memory_type": "gossip"}`, 400, "memory_type"},
		{"bad scope", "POST", "/v1/memory", `{"text": "x", "scope": "room:1"}`, 400, "scope"},
		{"bad conversation id", "POST", "/v1/memory", `{"text": "x", "conversation_id": "c1"}`, 400, "conversation_id"},
		{"21 tags", "POST", "/v1/memory", map[string]any{"text": "x", "tags": manyTags(21)}, 400, "tags: at most 20"},
		{"a 65-character tag", "POST", "/v1/memory", map[string]any{"text": "x", "tags": []string{"ok", strings.Repeat("t", 65)}}, 400, "tags[1]"},
		{"scope and entity disagree", "POST", "/v1/memory", `{"text": "x", "scope": "entity:alice", "entity": "bob"}`, 400, `entity: must be "alice" for scope "entity:alice", got "bob"`},
		{"2 MiB body", "POST", "/v1/memory", big, 413, "larger than"},
		{"limit 0", "GET", "/v1/memory?search=x&limit=0", nil, 400, "limit"},
		{"limit 21", "GET", "/v1/memory?search=x&limit=21", nil, 400, "limit"},
		{"limit abc", "GET", "/v1/memory?limit=abc", nil, 400, "limit"},
		{"unknown doc_type", "GET", "/v1/schema?doc_type=note", nil, 400, "doc_type"},
		{"wrong method", "PUT", "/v1/memory", `{}`, 405, "method"},
		{"wrong method on id", "POST", "/v1/memory/doc-1", nil, 405, "method"},
		{"unknown path", "GET", "/v1/nothing", nil, 404, "no endpoint"},
		{"delete unknown", "DELETE", "/v1/memory/doc-00000000-0000-0000-0000-000000000000", nil, 404, "not found"},
		{"delete malformed id", "DELETE", "/v1/memory/abc", nil, 404, "not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var d detail
			st := ada.call(tc.method, tc.path, tc.body, &d)
			if st != tc.status {
				t.Fatalf("status %d, want %d (detail %q)", st, tc.status, d.Detail)
			}
			if !strings.Contains(strings.ToLower(d.Detail), strings.ToLower(tc.mention)) {
				t.Fatalf("detail %q should mention %q", d.Detail, tc.mention)
			}
		})
	}
	var list memoryList
	ada.call("GET", "/v1/memory", nil, &list)
	if list.Count != 0 {
		t.Fatalf("rejected requests wrote %d memories", list.Count)
	}
}

// manyTags is n distinct tags.
func manyTags(n int) []string {
	tags := make([]string, n)
	for i := range tags {
		tags[i] = fmt.Sprintf("tag%d", i)
	}
	return tags
}

func TestDeletingATurnThroughTheMemoryAPIIsRefused(t *testing.T) {
	env := testEnv(t, nil)
	ada := startAda(t, "serve", env)
	turnID := seedTurn(t, env)
	var d detail
	if st := ada.call("DELETE", "/v1/memory/"+turnID, nil, &d); st != http.StatusNotFound {
		t.Fatalf("deleting a turn: %d %q, want 404", st, d.Detail)
	}
	if !turnExists(t, env, turnID) {
		t.Fatal("the turn was deleted")
	}
}

func TestMemoryEndpointsAnswer503WhenRAGIsOff(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, map[string]string{"RAG_ENABLED": "false"}))
	for _, c := range []struct{ method, path string }{{"GET", "/v1/memory?search=x"}, {"POST", "/v1/memory"}, {"DELETE", "/v1/memory/doc-00000000-0000-0000-0000-000000000000"}} {
		var d detail
		body := any(nil)
		if c.method == "POST" {
			body = `{"text":"x"}`
		}
		if st := ada.call(c.method, c.path, body, &d); st != 503 || !strings.Contains(d.Detail, "RAG") {
			t.Errorf("%s %s: %d %q, want 503 naming RAG", c.method, c.path, st, d.Detail)
		}
	}
}

func TestMemoryTypeFormIsAccepted(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, nil))
	var m memoryRecord
	st := ada.call("POST", "/v1/memory", map[string]any{"content": "the wifi password changed", "memory_type": "important"}, &m)
	if st != 201 || m.Meta.Importance != 5 || fmt.Sprint(m.Meta.Tags) != "[important]" {
		t.Fatalf("%d %+v", st, m)
	}
}
