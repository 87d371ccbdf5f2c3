package main

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core/llm/llmtest"
	chromastore "github.com/ada-chat/ada/storage/chroma"
	"github.com/ada-chat/ada/storage/storagetest"
)

// TestChromaReplicas runs two `ada serve` processes on one Chroma server,
// each with its own DATA_DIR (the bridge's state stays local): a memory
// created through one is found, patched and deleted through the other; a
// conversation continued on the other keeps its turns; the memory page
// counts it and lists it as forgotten. Then Chroma stops:
// memory endpoints and health answer 503, and both recover when it is
// back, without a restart.
func TestChromaReplicas(t *testing.T) {
	chroma := storagetest.StartChroma(t)
	env := map[string]string{"VECTORDB_URL": chroma.URL, "RAG_DEBUG": "true"}
	a, llmA, _ := startChatAda(t, "ollama", env)
	b, llmB, _ := startChatAda(t, "ollama", env)

	var created memoryRecord
	if st := a.call("POST", "/v1/memory", map[string]any{"text": "Project falcon launches on the ninth of March"}, &created); st != http.StatusCreated {
		t.Fatalf("create on A: %d", st)
	}
	// The memory page on Chroma counts as on SQLite (issue 23).
	if st, page := b.send("", "GET", "/ui/memories", nil); st != http.StatusOK || !strings.Contains(string(page), "1 memories, newest first") {
		t.Fatalf("memory page on B: %d\n%s", st, page)
	}
	var found memoryList
	b.call("GET", "/v1/memory?search=when+does+falcon+launch", nil, &found)
	if found.Count == 0 || found.Items[0].ID != created.ID {
		t.Fatalf("B must find A's memory first: %+v", found)
	}
	if st := b.call("PATCH", "/v1/memory/"+created.ID, map[string]any{"text": "Project falcon launches on the tenth of March"}, nil); st != 200 {
		t.Fatalf("patch on B: %d", st)
	}
	var got memoryRecord
	if a.call("GET", "/v1/memory/"+created.ID, nil, &got); !strings.Contains(got.Text, "tenth") {
		t.Fatalf("A sees %q after B's patch", got.Text)
	}
	var history struct {
		Items []struct{ Event string } `json:"items"`
	}
	if a.call("GET", "/v1/memory/"+created.ID+"/history", nil, &history); len(history.Items) != 2 {
		t.Fatalf("history on A: %+v", history)
	}
	if st := b.call("DELETE", "/v1/memory/"+created.ID, nil, nil); st != 200 {
		t.Fatalf("delete on B: %d", st)
	}
	if st := a.call("GET", "/v1/memory/"+created.ID, nil, nil); st != http.StatusNotFound {
		t.Fatalf("A after B's delete: %d, want 404", st)
	}
	if st, page := a.send("", "GET", "/ui/forgotten", nil); st != http.StatusOK || !strings.Contains(string(page), created.ID) {
		t.Fatalf("forgotten list on A after B's delete: %d\n%s", st, page)
	}

	llmA.Script(llmtest.Reply{Tokens: []string{"Hi Sam"}})
	llmB.Script(llmtest.Reply{Tokens: []string{"Blue, noted"}})
	var r1, r2 chatResponse
	a.call("POST", "/v1/chat", map[string]any{"prompt": "My name is Sam"}, &r1)
	b.call("POST", "/v1/chat", map[string]any{"prompt": "My favourite colour is blue", "conversation_id": r1.ConversationID}, &r2)
	if msgs := llmB.ChatRequests()[0].Messages; len(msgs) < 3 || msgs[1].Content != "My name is Sam" || msgs[2].Content != "Hi Sam" {
		t.Fatalf("B's prompt lacks the turns A stored: %+v", msgs)
	}
	var conv struct {
		Turns []struct{ Content string } `json:"turns"`
	}
	if a.call("GET", "/v1/conversations/"+r1.ConversationID, nil, &conv); len(conv.Turns) != 4 {
		t.Fatalf("A sees %d turns of the conversation, want 4", len(conv.Turns))
	}

	var health struct {
		OK     bool `json:"ok"`
		Chroma struct {
			OK        bool   `json:"ok"`
			Backend   string `json:"backend"`
			Version   string `json:"version"`
			Heartbeat int64  `json:"heartbeat"`
		} `json:"chroma"`
	}
	if st := a.call("GET", "/v1/healthz", nil, &health); st != 200 || health.Chroma.Backend != "chroma" ||
		health.Chroma.Version == "" || health.Chroma.Heartbeat == 0 {
		t.Fatalf("health: %d %+v", st, health)
	}
	var rag struct {
		Store struct {
			Backend string `json:"backend"`
			Total   int    `json:"total_documents"`
		} `json:"store"`
	}
	if a.call("GET", "/v1/debug/rag", nil, &rag); rag.Store.Backend != "chroma" || rag.Store.Total == 0 {
		t.Fatalf("debug rag: %+v", rag)
	}

	chroma.Stop()
	var d detail
	if st := a.call("GET", "/v1/memory?search=falcon", nil, &d); st != http.StatusServiceUnavailable || d.Detail == "" {
		t.Fatalf("memory search with Chroma down: %d %+v, want 503", st, d)
	}
	if st := a.call("POST", "/v1/chat", map[string]any{"prompt": "When does falcon launch?"}, &d); st != http.StatusServiceUnavailable ||
		!strings.Contains(d.Detail, "Chroma") {
		t.Fatalf("chat with Chroma down: %d %+v, want 503 naming the store", st, d)
	}
	if st := b.call("GET", "/v1/healthz", nil, &health); st != http.StatusServiceUnavailable || health.Chroma.OK || health.Chroma.Backend != "chroma" {
		t.Fatalf("health with Chroma down: %d %+v", st, health)
	}
	chroma.Start()
	if st := a.call("GET", "/v1/memory?search=falcon", nil, nil); st != 200 {
		t.Fatalf("memory search after Chroma is back: %d", st)
	}
	if st := b.call("GET", "/v1/healthz", nil, nil); st != 200 {
		t.Fatalf("health after Chroma is back: %d", st)
	}
}

// TestEvalRetrievalOnChroma: `ada eval retrieval` runs on Chroma (each
// sample in a database of its own) and measures what it measures on
// SQLite, in every mode.
func TestEvalRetrievalOnChroma(t *testing.T) {
	chroma := storagetest.StartChroma(t)
	file := filepath.Join(t.TempDir(), "tiny.json")
	if err := os.WriteFile(file, []byte(evalTinyFile), 0o600); err != nil {
		t.Fatal(err)
	}
	onSQLite, stderr, err := runEvalCmd(t, "retrieval", file, "--k", "1,2,5", "--json")
	if err != nil {
		t.Fatalf("eval on SQLite: %v\n%s", err, stderr)
	}
	onChroma, stderr, err := runEvalCmdEnv(t, map[string]string{"VECTORDB_URL": chroma.URL}, "retrieval", file, "--k", "1,2,5", "--json")
	if err != nil {
		t.Fatalf("eval on Chroma: %v\n%s", err, stderr)
	}
	// The recall of every mode, without the latencies.
	recall := func(out string) string {
		var modes map[string]map[string]json.RawMessage
		if err := json.Unmarshal([]byte(out), &modes); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		for _, m := range modes {
			delete(m, "latency_ms")
		}
		b, _ := json.Marshal(modes)
		return string(b)
	}
	if r := recall(onChroma); r != recall(onSQLite) || !strings.Contains(r, "hybrid") {
		t.Fatalf("recall differs:\nSQLite %s\nChroma %s", recall(onSQLite), r)
	}
}

// TestMigrateStoreRoundTrip: `ada migrate-store --to chroma` copies a
// SQLite store (memories with a patch and a deletion in their history, a
// conversation's turns) to Chroma, and `--to sqlite` copies it back into a
// fresh data directory: ids, timestamps, metadata, history and vectors are
// the same all the way, and an Ada on Chroma serves them.
func TestMigrateStoreRoundTrip(t *testing.T) {
	chroma := storagetest.StartChroma(t)
	ada, llm, env := startChatAda(t, "ollama", nil)
	llm.Default(llmtest.Reply{Tokens: []string{"Noted."}})
	var kept, gone memoryRecord
	ada.call("POST", "/v1/memory", map[string]any{"text": "Sam's bike is a blue Peugeot", "tags": []string{"bike"}}, &kept)
	ada.call("POST", "/v1/memory", map[string]any{"text": "The office closes at six"}, &gone)
	ada.call("PATCH", "/v1/memory/"+kept.ID, map[string]any{"text": "Sam's bike is a red Peugeot"}, nil)
	ada.call("DELETE", "/v1/memory/"+gone.ID, nil, nil)
	var r chatResponse
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "I cycle to work"}, &r)
	ada.settle()
	ada.stop()
	src := readStore(t, env, gone.ID)

	env["VECTORDB_URL"] = chroma.URL
	ctx := context.Background()
	if out, err := runCmd(ctx, env, nil, "migrate-store", "--to", "chroma"); err != nil || !strings.Contains(out, "imported ") {
		t.Fatalf("migrate-store --to chroma: %v\n%s", err, out)
	}
	store, err := chromastore.Open(ctx, chroma.URL)
	if err != nil {
		t.Fatal(err)
	}
	sameStore(t, src, renormalised(t, src, readContents(t, store, gone.ID)), true)
	if out, err := runCmd(ctx, env, nil, "migrate-store", "--to", "chroma"); err != nil || !strings.Contains(out, "imported 0 documents and 0 history entries") {
		t.Fatalf("a second run must find everything stored: %v\n%s", err, out)
	}

	back := testEnv(t, map[string]string{"VECTORDB_URL": chroma.URL})
	if out, err := runCmd(ctx, back, nil, "migrate-store", "--to", "sqlite"); err != nil {
		t.Fatalf("migrate-store --to sqlite: %v\n%s", err, out)
	}
	sameStore(t, src, renormalised(t, src, readStore(t, back, gone.ID)), true)

	onChroma := startAda(t, "serve", env)
	// DATA_DIR's ada.db still holds the documents copied from it, and is
	// never searched on Chroma: it must not load a search index of them.
	if logs := onChroma.logs.String(); !strings.Contains(logs, "db_vector_index=0") {
		t.Errorf("the local database built a search index beside Chroma:\n%s", logs)
	}
	var found memoryList
	onChroma.call("GET", "/v1/memory?search=red+Peugeot+bike", nil, &found)
	if found.Count == 0 || found.Items[0].ID != kept.ID {
		t.Errorf("search on Chroma after the migration: %+v", found)
	}
}

// renormalised checks that b's vectors are a's up to float32 rounding
// (Chroma's cosine space stores each vector normalised again, which moves
// a component of a vector Ada normalised by an ulp at most), and returns b
// with a's vectors, for sameStore to compare the rest exactly.
func renormalised(t *testing.T, a, b storeContents) storeContents {
	t.Helper()
	for id, d := range b.docs {
		want := a.docs[id].Embedding
		if len(d.Embedding) != len(want) {
			continue // sameStore reports it
		}
		for i := range want {
			if diff := math.Abs(float64(d.Embedding[i] - want[i])); diff > 1e-6 {
				t.Errorf("document %s: component %d is %v, want %v", id, i, d.Embedding[i], want[i])
				break
			}
		}
		d.Embedding = want
		b.docs[id] = d
	}
	return b
}

// TestReindexRefusesChroma: reindex works on SQLite only, and says so
// rather than re-embed a store Ada does not use.
func TestReindexRefusesChroma(t *testing.T) {
	env := testEnv(t, map[string]string{"VECTORDB_URL": "http://127.0.0.1:1"})
	if _, err := runCmd(context.Background(), env, nil, "reindex"); err == nil || !strings.Contains(err.Error(), "VECTORDB_URL") {
		t.Fatalf("reindex with VECTORDB_URL: %v", err)
	}
}
