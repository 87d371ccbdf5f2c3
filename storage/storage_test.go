package storage

import (
	"context"
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
