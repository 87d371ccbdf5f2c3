package storage

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

func openTestDB(t *testing.T) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func memoryDoc(text, scope string, importance int) core.Document {
	return core.Document{
		ID:        core.NewDocID(),
		Text:      text,
		Embedding: embed.HashVector(text),
		Meta: core.Metadata{Type: core.DocMemory, Timestamp: time.Now().UTC(), Source: core.SourceChat,
			Scope: scope, Importance: importance},
	}
}

func TestPutGetDeleteRespectsType(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	m := memoryDoc("Sam likes black coffee", core.ScopeGlobal, 3)
	idx := 0
	turn := core.Document{ID: core.NewDocID(), Text: "hello", Embedding: embed.HashVector("hello"),
		Meta: core.Metadata{Type: core.DocTurn, Timestamp: time.Now(), Source: core.SourceChat, Scope: core.ScopeGlobal,
			ConversationID: core.NewConversationID(), Role: "user", TurnIndex: &idx}}
	if err := db.Put(ctx, m, turn); err != nil {
		t.Fatal(err)
	}
	got, err := db.Get(ctx, m.ID)
	if err != nil || got.Text != m.Text || got.Meta.Importance != 3 || len(got.Embedding) != core.Dim {
		t.Fatalf("get = %+v, %v", got.Meta, err)
	}
	if err := db.Delete(ctx, turn.ID, core.DocMemory); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("deleting a turn as a memory: err = %v, want not found", err)
	}
	if _, err := db.Get(ctx, turn.ID); err != nil {
		t.Fatalf("the turn must survive: %v", err)
	}
	if err := db.Delete(ctx, m.ID, core.DocMemory); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Get(ctx, m.ID); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("after delete: %v", err)
	}
}

func TestPutRejectsInvalidMetadataAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	good := memoryDoc("fine", core.ScopeGlobal, 3)
	tests := map[string]func(d *core.Document){
		"importance 0":   func(d *core.Document) { d.Meta.Importance = 0 },
		"importance 6":   func(d *core.Document) { d.Meta.Importance = 6 },
		"bad scope":      func(d *core.Document) { d.Meta.Scope = "room:1" },
		"bad id":         func(d *core.Document) { d.ID = "mem-1" },
		"short vector":   func(d *core.Document) { d.Embedding = d.Embedding[:10] },
		"blank text":     func(d *core.Document) { d.Text = "  " },
		"unknown type":   func(d *core.Document) { d.Meta.Type = "note" },
		"bad conv id":    func(d *core.Document) { d.Meta.ConversationID = "conv-1" },
		"turn sans role": func(d *core.Document) { d.Meta.Type = core.DocTurn; d.Meta.Importance = 0 },
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			bad := memoryDoc("broken", core.ScopeGlobal, 3)
			mutate(&bad)
			err := db.Put(ctx, good, bad)
			if core.KindOf(err) != core.KindInvalid {
				t.Fatalf("err = %v, want invalid", err)
			}
			if _, err := db.Get(ctx, good.ID); core.KindOf(err) != core.KindNotFound {
				t.Fatalf("a rejected batch must write nothing")
			}
		})
	}
}

func TestSearchFiltersByTypeAndScope(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	global := memoryDoc("the coffee machine is on floor two", core.ScopeGlobal, 3)
	scoped := memoryDoc("coffee for the project alpha team", core.EntityScope("alpha"), 3)
	faq := core.Document{ID: core.NewDocID(), Text: "Q: coffee? A: yes", Embedding: embed.HashVector("coffee"),
		Meta: core.Metadata{Type: core.DocFAQ, Timestamp: time.Now(), Source: core.SourceKB, Scope: core.ScopeGlobal}}
	if err := db.Put(ctx, global, scoped, faq); err != nil {
		t.Fatal(err)
	}
	q := embed.HashVector("where is coffee")
	tests := []struct {
		name   string
		filter core.Filter
		want   []string
	}{
		{"global memories only", core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}}, []string{global.ID}},
		{"entity plus global", core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal, core.EntityScope("alpha")}}, []string{global.ID, scoped.ID}},
		{"faqs", core.Filter{Type: core.DocFAQ}, []string{faq.ID}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := db.Search(ctx, core.VectorQuery{Filter: tc.filter, Vector: q, K: 10})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, h := range hits {
				got[h.ID] = true
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d hits, want %d", len(got), len(tc.want))
			}
			for _, id := range tc.want {
				if !got[id] {
					t.Fatalf("missing %s", id)
				}
			}
		})
	}
}

func TestReplaceIsAtomic(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	old := core.Document{ID: core.NewDocID(), Text: "old persona", Embedding: embed.HashVector("old"),
		Meta: core.Metadata{Type: core.DocPersona, Timestamp: time.Now(), Source: core.SourceSystem, Scope: core.ScopeGlobal, Version: "v1"}}
	if err := db.Put(ctx, old); err != nil {
		t.Fatal(err)
	}
	bad := old
	bad.ID = core.NewDocID()
	bad.Meta.Version = ""
	if err := db.Replace(ctx, core.Filter{Type: core.DocPersona}, bad); err == nil {
		t.Fatal("an invalid replacement must fail")
	}
	if _, err := db.Get(ctx, old.ID); err != nil {
		t.Fatalf("the old persona must survive a failed replace: %v", err)
	}
}

func TestEmbedderMismatchIsRefused(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	if err := db.CheckEmbedder(ctx, "hash:v1"); err != nil {
		t.Fatal(err)
	}
	if err := db.CheckEmbedder(ctx, "hash:v1"); err != nil {
		t.Fatal(err)
	}
	err := db.CheckEmbedder(ctx, "ollama:nomic-embed-text")
	if err == nil || !contains(err.Error(), "ada reindex") || !contains(err.Error(), "hash:v1") {
		t.Fatalf("err = %v", err)
	}
}

func contains(s, sub string) bool {
	return len(s) >= len(sub) && (s == sub || len(sub) == 0 || indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// Put with an id already stored replaces the document, in the documents,
// keyword and code tables and in the code index, also when one batch holds
// the id twice (the later one wins) and when the document has sources.
func TestPutReplacesByID(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	src := memoryDoc("the source of it all", core.ScopeGlobal, 3)
	first := memoryDoc("Oswald grows pumpkins", core.ScopeGlobal, 3)
	first.Meta.SourceIDs = []string{src.ID}
	if err := db.Put(ctx, src, first); err != nil {
		t.Fatal(err)
	}
	second, third := first, first
	second.Text, second.Embedding = "Oswald grows marrows", embed.HashVector("Oswald grows marrows")
	third.Text, third.Embedding = "Oswald grows squashes", embed.HashVector("Oswald grows squashes")
	third.Meta.Importance = 5
	if err := db.Put(ctx, second, third); err != nil {
		t.Fatal(err)
	}
	got, err := db.Get(ctx, first.ID)
	if err != nil || got.Text != third.Text || got.Meta.Importance != 5 {
		t.Fatalf("get = %q %d, %v; want the last put", got.Text, got.Meta.Importance, err)
	}
	var docs, codes, sources int
	db.read.QueryRowContext(ctx, "SELECT count(*) FROM documents").Scan(&docs)
	db.read.QueryRowContext(ctx, "SELECT count(*) FROM documents_codes").Scan(&codes)
	db.read.QueryRowContext(ctx, "SELECT count(*) FROM memory_sources WHERE memory_id = ?", first.ID).Scan(&sources)
	if docs != 2 || codes != 2 || sources != 1 {
		t.Fatalf("%d documents, %d codes, %d sources of the memory; want 2, 2, 1", docs, codes, sources)
	}
	checkKeywordIndex(t, db, "replacing")
	for text, want := range map[string]int{"pumpkins": 0, "marrows": 0, "squashes": 1} {
		if ids := keywordIDs(t, db, text, core.Filter{}); len(ids) != want {
			t.Errorf("keyword %q finds %v", text, ids)
		}
	}
	checkIndex(t, db, []string{"Oswald grows squashes", "pumpkins"})
	hits, err := db.Search(ctx, core.VectorQuery{Filter: core.Filter{Type: core.DocMemory}, Vector: third.Embedding, K: 1})
	if err != nil || len(hits) != 1 || hits[0].ID != first.ID || hits[0].Distance > 1e-6 {
		t.Fatalf("search = %+v, %v", hits, err)
	}
}

// encodeAll encodes docs as a write does (encodeDocuments) and waits for
// them all.
func encodeAll(t *testing.T, docs []core.Document) []encodedDoc {
	t.Helper()
	e := encodeDocuments(new(core.SchemaMemo), docs)
	out := make([]encodedDoc, len(docs))
	for i := range docs {
		d, err := e.get(i)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = *d
	}
	return out
}

// A batch large enough to be encoded while the transaction runs is as
// atomic as a small one: an invalid document anywhere in it, the first or
// the last, fails the whole Put with its own error, and nothing is written.
func TestLargePutWithAnInvalidDocumentWritesNothing(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	for _, bad := range []int{0, 57, 99} {
		docs := make([]core.Document, 100)
		for i := range docs {
			docs[i] = memoryDoc(fmt.Sprintf("memory %d of a large batch", i), core.ScopeGlobal, 3)
		}
		docs[bad].Meta.Importance = 9
		err := db.Put(ctx, docs...)
		if core.KindOf(err) != core.KindInvalid {
			t.Fatalf("invalid document %d: err = %v, want invalid", bad, err)
		}
		var n, codes int
		db.read.QueryRowContext(ctx, "SELECT count(*) FROM documents").Scan(&n)
		db.read.QueryRowContext(ctx, "SELECT count(*) FROM documents_codes").Scan(&codes)
		if n != 0 || codes != 0 || db.codes.Len() != 0 {
			t.Fatalf("invalid document %d: %d documents, %d codes, %d in the index after a failed Put", bad, n, codes, db.codes.Len())
		}
		checkKeywordIndex(t, db, "a failed put")
	}
	// And a valid large batch is written whole, in order.
	docs := make([]core.Document, 100)
	for i := range docs {
		docs[i] = memoryDoc(fmt.Sprintf("memory %d of a large batch", i), core.ScopeGlobal, 3)
	}
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	got, err := db.List(ctx, core.Filter{Type: core.DocMemory}, 200)
	if err != nil || len(got) != len(docs) {
		t.Fatalf("listed %d of %d, %v", len(got), len(docs), err)
	}
	checkIndex(t, db, []string{"memory 42 of a large batch"})
}
