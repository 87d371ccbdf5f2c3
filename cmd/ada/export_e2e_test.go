package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// runCmd runs a one-shot command of the real program with args and stdin.
func runCmd(ctx context.Context, env map[string]string, stdin io.Reader, args ...string) (string, error) {
	var out bytes.Buffer
	err := run(ctx, runEnv{args: args, lookupEnv: mapEnv(env), stdin: stdin, stdout: &out, stderr: io.Discard})
	return out.String(), err
}

// storeContents is every document of a data directory, with its vector,
// and the history of every memory in it or named in memoryIDs (a deleted
// memory keeps its history).
type storeContents struct {
	docs    map[string]core.Document
	history map[string][]core.HistoryEntry
}

func readStore(t *testing.T, env map[string]string, memoryIDs ...string) storeContents {
	t.Helper()
	db := openEnvStore(t, env)
	defer db.Close()
	return readContents(t, db, memoryIDs...)
}

// readContents is readStore on any store.
func readContents(t *testing.T, db core.Store, memoryIDs ...string) storeContents {
	t.Helper()
	ctx := context.Background()
	list, err := db.List(ctx, core.Filter{}, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	c := storeContents{docs: map[string]core.Document{}, history: map[string][]core.HistoryEntry{}}
	for _, d := range list {
		full, err := db.Get(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		c.docs[d.ID] = full
		if d.Meta.Type == core.DocMemory {
			memoryIDs = append(memoryIDs, d.ID)
		}
	}
	for _, id := range memoryIDs {
		if c.history[id], err = db.History(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// without returns c without the documents of the given types.
func (c storeContents) without(types ...core.DocType) storeContents {
	out := storeContents{docs: map[string]core.Document{}, history: c.history}
	for id, d := range c.docs {
		if !slices.Contains(types, d.Meta.Type) {
			out.docs[id] = d
		}
	}
	return out
}

// sameStore fails unless b holds exactly a's documents (text, metadata,
// vector) and history; vectors are compared only when withVectors.
func sameStore(t *testing.T, a, b storeContents, withVectors bool) {
	t.Helper()
	if len(a.docs) != len(b.docs) {
		t.Errorf("%d documents, want %d", len(b.docs), len(a.docs))
	}
	for id, want := range a.docs {
		got, ok := b.docs[id]
		switch {
		case !ok:
			t.Errorf("document %s (%s) is missing", id, want.Meta.Type)
		case toJSON(got) != toJSON(want):
			t.Errorf("document %s:\n got %s\nwant %s", id, toJSON(got), toJSON(want))
		case withVectors && !slices.EqualFunc(got.Embedding, want.Embedding, sameFloatBits):
			t.Errorf("document %s: the vector differs", id)
		}
	}
	for id, want := range a.history {
		if got := b.history[id]; toJSON(got) != toJSON(want) {
			t.Errorf("history of %s:\n got %s\nwant %s", id, toJSON(got), toJSON(want))
		}
	}
}

// sameFloatBits compares floats to the bit: -0 is not 0.
func sameFloatBits(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) }

// TestExportImportRoundTrip fills an Ada with every kind of document (the
// persona, memories with a patch and a deletion in their history, an
// automatic memory with its sources, turns and a summary from chats),
// exports it while it runs, imports the export into a fresh data directory
// and starts a second Ada on it: every document, vector and history entry
// is the same, and the second Ada serves them.
func TestExportImportRoundTrip(t *testing.T) {
	ada, llm, env := startChatAda(t, "ollama", map[string]string{"RAG_SUMMARY_EVERY_N": "2"})
	llm.Default(llmtest.Reply{Tokens: []string{"Noted."}})
	var kept, gone memoryRecord
	ada.call("POST", "/v1/memory", map[string]any{"text": "Sam's bike is a blue Peugeot", "importance": 2, "tags": []string{"bike"}}, &kept)
	ada.call("POST", "/v1/memory", map[string]any{"text": "The office closes at six"}, &gone)
	if st := ada.call("PATCH", "/v1/memory/"+kept.ID, map[string]any{"text": "Sam's bike is a red Peugeot", "importance": 4}, nil); st != http.StatusOK {
		t.Fatalf("PATCH: %d", st)
	}
	if st := ada.call("DELETE", "/v1/memory/"+gone.ID, nil, nil); st != http.StatusNoContent && st != http.StatusOK {
		t.Fatalf("DELETE: %d", st)
	}
	llm.ScriptFormatted(factsReply(`{"text": "Sam lives in Paris", "importance": 4, "replaces": []}`))
	var r chatResponse
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "I live in Paris", "entity": "sam"}, &r)
	ada.settle()
	ada.call("POST", "/v1/chat", map[string]any{"prompt": "And I cycle to work", "conversation_id": r.ConversationID, "entity": "sam"}, nil)
	ada.settle()

	// Exported while Ada runs.
	file := filepath.Join(t.TempDir(), "ada.jsonl")
	out, err := runCmd(context.Background(), env, nil, "export", file)
	if err != nil || !strings.Contains(out, "exported ") {
		t.Fatalf("ada export: %v\n%s", err, out)
	}
	var histBefore historyList
	ada.call("GET", "/v1/memory/"+kept.ID+"/history", nil, &histBefore)
	ada.stop()
	src := readStore(t, env, gone.ID)
	types := map[core.DocType]int{}
	for _, d := range src.docs {
		types[d.Meta.Type]++
	}
	if types[core.DocPersona] == 0 || types[core.DocMemory] != 2 || types[core.DocTurn] != 4 || types[core.DocSummary] != 1 {
		t.Fatalf("the source store holds %v, want persona, 2 memories, 4 turns, a summary", types)
	}
	if len(src.history[gone.ID]) != 2 || len(src.history[kept.ID]) != 2 {
		t.Fatalf("source history: %s", toJSON(src.history))
	}

	dst := testEnv(t, map[string]string{"LLM_BACKEND": "ollama", "LLM_BASE_URL": llm.URL(), "LLM_MODEL": llmtest.ModelName})
	out, err = runCmd(context.Background(), dst, nil, "import", file)
	if err != nil || strings.Contains(out, "embedding") {
		t.Fatalf("ada import: %v\n%s", err, out)
	}
	sameStore(t, src, readStore(t, dst, gone.ID), true)

	ada2 := startAda(t, "serve", dst)
	var hist historyList
	ada2.call("GET", "/v1/memory/"+kept.ID+"/history", nil, &hist)
	if hist.events() != "create patch" || toJSON(hist) != toJSON(histBefore) {
		t.Errorf("history served after the import: %s, want %s", toJSON(hist), toJSON(histBefore))
	}
	var found memoryList
	ada2.call("GET", "/v1/memory?search=red+Peugeot+bike", nil, &found)
	if found.Count == 0 || found.Items[0].ID != kept.ID {
		t.Errorf("search after the import: %+v", found)
	}
	var conv struct {
		Turns []struct{ Role, Content string } `json:"turns"`
	}
	ada2.call("GET", "/v1/conversations/"+r.ConversationID, nil, &conv)
	if len(conv.Turns) != 4 || conv.Turns[0].Content != "I live in Paris" {
		t.Errorf("conversation after the import: %+v", conv)
	}
	ada2.stop()
	// Ada writes its persona and the specialists' FAQ entries afresh at
	// each start (same ids and texts, new timestamps); what users stored
	// is as it was.
	sameStore(t, src.without(core.DocPersona, core.DocFAQ), readStore(t, dst, gone.ID).without(core.DocPersona, core.DocFAQ), true)
}

// TestExportToStdoutWithoutVectors: `ada export --no-vectors` writes JSON
// Lines to standard output, a header and one line per document and history
// entry, with no embedding; importing it with the same embedder gives the
// same vectors back. An import beside the running Ada is refused.
func TestExportToStdoutWithoutVectors(t *testing.T) {
	env := testEnv(t, nil)
	ada := startAda(t, "serve", env)
	var m memoryRecord
	ada.call("POST", "/v1/memory", map[string]any{"text": "Alpha ships on Fridays", "tags": []string{"release"}}, &m)
	out, err := runCmd(context.Background(), env, nil, "export", "--no-vectors")
	if err != nil {
		t.Fatalf("ada export: %v", err)
	}
	// Import writes: it needs DATA_DIR for itself, as the server has it.
	if _, err := runCmd(context.Background(), env, strings.NewReader(out), "import"); err == nil || !strings.Contains(err.Error(), "in use by another Ada process") {
		t.Fatalf("an import beside a running Ada: %v, want a refusal", err)
	}
	ada.stop()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var header map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &header); err != nil || header["kind"] != "header" || header["vectors"] != false ||
		header["embedder"] != "hash:v1" || header["format"] != "ada-export" {
		t.Fatalf("header %s: %v", lines[0], err)
	}
	kinds := map[string]int{}
	for _, l := range lines[1:] {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if _, ok := rec["embedding"]; ok {
			t.Fatalf("an embedding in a --no-vectors export: %s", l)
		}
		kinds[rec["kind"].(string)]++
	}
	if kinds["document"] != int(header["documents"].(float64)) || kinds["history"] != 1 {
		t.Fatalf("lines by kind %v, header %v", kinds, header)
	}

	dst := testEnv(t, nil)
	got, err := runCmd(context.Background(), dst, strings.NewReader(out), "import", "-")
	if err != nil || !strings.Contains(got, "has no vectors: embedding every imported document with hash:v1") {
		t.Fatalf("ada import -: %v\n%s", err, got)
	}
	sameStore(t, readStore(t, env), readStore(t, dst), true)
}

// exportTo runs ada export of env's store into a new file, and returns
// its name.
func exportTo(t *testing.T, env map[string]string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "ada.jsonl")
	if out, err := runCmd(context.Background(), env, nil, "export", file); err != nil {
		t.Fatalf("ada export: %v\n%s", err, out)
	}
	return file
}

// cancelAfter reads r and cancels the import after n bytes: a process
// stopped half-way.
type cancelAfter struct {
	r      io.Reader
	n      int
	cancel context.CancelFunc
	read   atomic.Int64
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p[:min(len(p), 4096)])
	if c.read.Add(int64(n)) >= int64(c.n) {
		c.cancel()
	}
	return n, err
}

// seedExportable writes n memories, each with a history entry, into a stopped
// data directory.
func seedExportable(t *testing.T, env map[string]string, n int) {
	t.Helper()
	ctx := context.Background()
	db := openEnvStore(t, env)
	defer db.Close()
	if err := db.CheckEmbedder(ctx, "hash:v1"); err != nil {
		t.Fatal(err)
	}
	var c core.Change
	texts := make([]string, n)
	for i := range n {
		texts[i] = "memory number " + strings.Repeat("x", i%7) + " " + time.Duration(i).String()
	}
	at := time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.UTC)
	for i := range n {
		d := core.Document{ID: core.NewDocID(), Text: texts[i], Embedding: embed.HashVector(texts[i]), Meta: core.Metadata{
			Type: core.DocMemory, Timestamp: at.Add(time.Duration(i) * time.Second), Source: core.SourceChat, Scope: core.ScopeGlobal, Importance: 1 + i%5,
		}}
		c.Put = append(c.Put, d)
		c.History = append(c.History, core.HistoryEntry{MemoryID: d.ID, Event: core.HistoryCreate, Time: d.Meta.Timestamp, Text: d.Text, Meta: d.Meta})
	}
	if _, err := db.Apply(ctx, c); err != nil {
		t.Fatal(err)
	}
}

// TestImportResumesAfterInterruption stops an import half-way, then runs
// it again: it continues, and the store ends with every document and
// history entry once.
func TestImportResumesAfterInterruption(t *testing.T) {
	src := testEnv(t, nil)
	seedExportable(t, src, 700)
	file := exportTo(t, src)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	dst := testEnv(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, err := runCmd(ctx, dst, &cancelAfter{r: bytes.NewReader(data), n: len(data) / 2, cancel: cancel}, "import")
	if err == nil || !strings.Contains(err.Error(), "run it again to resume") {
		t.Fatalf("an interrupted import: %v\n%s", err, out)
	}
	partial := readStore(t, dst)
	if len(partial.docs) == 0 || len(partial.docs) >= 700 {
		t.Fatalf("the interrupted import wrote %d documents, want some of 700", len(partial.docs))
	}

	out, err = runCmd(context.Background(), dst, nil, "import", file)
	if err != nil {
		t.Fatalf("the resumed import: %v\n%s", err, out)
	}
	if !strings.Contains(out, "imported "+strconv.Itoa(700-len(partial.docs))+" documents") {
		t.Errorf("the resumed import said %q, want %d new documents", out, 700-len(partial.docs))
	}
	want := readStore(t, src)
	got := readStore(t, dst)
	sameStore(t, want, got, true)
	// Once more: nothing new.
	out, err = runCmd(context.Background(), dst, nil, "import", file)
	if err != nil || !strings.Contains(out, "imported 0 documents and 0 history entries; 700 documents and 700 history entries were already stored") {
		t.Fatalf("a third import: %v\n%s", err, out)
	}
}

// TestImportWithAnotherEmbedder imports a hash-embedded export into a store
// configured for another embedder: the texts are embedded again with it,
// the command says so, and Ada starts on the store with that embedder.
func TestImportWithAnotherEmbedder(t *testing.T) {
	src := testEnv(t, nil)
	ada := startAda(t, "serve", src)
	var m memoryRecord
	ada.call("POST", "/v1/memory", map[string]any{"text": "Sam drinks black coffee"}, &m)
	ada.call("POST", "/v1/memory", map[string]any{"text": "The office closes at six"}, nil)
	file := exportTo(t, src)
	ada.stop()

	fake := llmtest.New(t)
	dst := testEnv(t, map[string]string{"EMBED_BACKEND": "ollama", "EMBED_BASE_URL": fake.URL(), "EMBED_MODEL": "nomic-embed-text"})
	out, err := runCmd(context.Background(), dst, nil, "import", file)
	if err != nil || !strings.Contains(out, "written by hash:v1, this store uses ollama:nomic-embed-text: re-embedding") {
		t.Fatalf("ada import: %v\n%s", err, out)
	}
	embedded := 0
	for _, r := range fake.Requests() {
		embedded += len(r.Input)
	}
	want, got := readStore(t, src), readStore(t, dst)
	if embedded < len(want.docs) {
		t.Errorf("the new embedder saw %d texts, want every document's (%d)", embedded, len(want.docs))
	}
	sameStore(t, want, got, false)
	if slices.Equal(got.docs[m.ID].Embedding, want.docs[m.ID].Embedding) {
		t.Error("the vector was kept, not embedded again")
	}
	ada2 := startAda(t, "serve", dst)
	var found memoryList
	ada2.call("GET", "/v1/memory?search=Sam+drinks+black+coffee", nil, &found)
	if found.Count == 0 || found.Items[0].ID != m.ID {
		t.Fatalf("after the import, search with the new embedder: %+v", found)
	}
}

// TestImportRefusesMalformedLine: a bad line stops the import with an error
// naming it; the lines before it are imported, nothing of it is.
func TestImportRefusesMalformedLine(t *testing.T) {
	src := testEnv(t, nil)
	seedExportable(t, src, 5)
	file := exportTo(t, src)
	data, _ := os.ReadFile(file)
	lines := strings.SplitAfter(string(data), "\n")
	var third map[string]any
	json.Unmarshal([]byte(lines[3]), &third)
	thirdID := third["id"].(string)

	for name, tc := range map[string]struct {
		line, want string
	}{
		"cut short":       {lines[3][:len(lines[3])/2] + "\n", "line 4: not a valid line"},
		"unknown kind":    {`{"kind":"note","text":"x","metadata":{}}` + "\n", `line 4: unknown kind "note"`},
		"misspelt field":  {strings.Replace(lines[3], `"metadata"`, `"metdata"`, 1), `line 4: not a valid line: json: unknown field "metdata"`},
		"invalid schema":  {strings.Replace(lines[3], `"importance":3`, `"importance":9`, 1), "line 4: memory metadata is invalid: importance"},
		"short embedding": {regexp.MustCompile(`"embedding":\[[^]]*\]`).ReplaceAllString(lines[3], `"embedding":[1,2,3]`), "embedding has 3 dimensions, want 768"},
		// Ada's own rules, as the API applies them (issue 36).
		"memory text too long": {regexp.MustCompile(`"text":"[^"]*"`).ReplaceAllLiteralString(lines[3], `"text":"`+strings.Repeat("a", 10001)+`"`),
			"line 4: document " + thirdID + ": text: a memory has at most 10000 characters"},
		"21 tags": {strings.Replace(lines[3], `"importance":3`, `"importance":3,"tags":["`+strings.Join(manyTags(21), `","`)+`"]`, 1),
			"line 4: document " + thirdID + ": metadata.tags: at most 20 tags"},
		"a tag of 65 characters": {strings.Replace(lines[3], `"importance":3`, `"importance":3,"tags":["`+strings.Repeat("t", 65)+`"]`, 1),
			"metadata.tags[0]: must be at most 64 characters"},
		"entity scope of another entity": {strings.Replace(lines[3], `"scope":"global"`, `"scope":"entity:!room:example.org","entity":"@bob:example.org"`, 1),
			`line 4: document ` + thirdID + `: metadata.entity: must be "!room:example.org" for scope`},
		"unknown history event": {strings.Replace(lines[6], `"event":"create"`, `"event":"rewrite"`, 1),
			`: event: "rewrite" is not one Ada records`},
		"vector not of unit length": {regexp.MustCompile(`"embedding":\[[^]]*\]`).ReplaceAllString(lines[3], `"embedding":[`+strings.Repeat("0.5,", 767)+`0.5]`),
			"line 4: document " + thirdID + ": embedding: must have unit length"},
	} {
		t.Run(name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "bad.jsonl")
			os.WriteFile(bad, []byte(strings.Join(lines[:3], "")+tc.line+strings.Join(lines[4:], "")), 0o600)
			dst := testEnv(t, nil)
			_, err := runCmd(context.Background(), dst, nil, "import", bad)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("import: %v, want an error with %q", err, tc.want)

			}
			got := readStore(t, dst)
			if len(got.docs) != 2 {
				t.Errorf("%d documents imported, want the 2 before the bad line", len(got.docs))
			}
			if _, ok := got.docs[thirdID]; ok {
				t.Errorf("the bad line's document %s was written", thirdID)
			}
		})
	}
	_, err := runCmd(context.Background(), testEnv(t, nil), strings.NewReader(`{"id":"doc-1"}`+"\n"), "import", "-")
	if err == nil || !strings.Contains(err.Error(), "line 1: not an Ada export") {
		t.Errorf("import of a file with no header: %v", err)
	}
}

// TestExportRefusesMixedVectors: after an interrupted reindex the vectors
// are of two embedders; an export with vectors is refused, one without is
// not.
func TestExportRefusesMixedVectors(t *testing.T) {
	env := testEnv(t, nil)
	seedExportable(t, env, 3)
	db := openEnvStore(t, env)
	if _, err := db.Writer().Exec("INSERT INTO store_meta (key, value) VALUES ('reindex_target', 'ollama:nomic-embed-text')"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := runCmd(context.Background(), env, nil, "export", filepath.Join(t.TempDir(), "x.jsonl"))
	if err == nil || !strings.Contains(err.Error(), "reindex to ollama:nomic-embed-text was interrupted") {
		t.Fatalf("export with mixed vectors: %v, want a refusal", err)
	}
	if _, err := runCmd(context.Background(), env, nil, "export", "--no-vectors", filepath.Join(t.TempDir(), "x.jsonl")); err != nil {
		t.Fatalf("export --no-vectors: %v", err)
	}
}
