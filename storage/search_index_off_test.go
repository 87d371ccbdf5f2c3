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

// A store opened WithoutSearchIndex (the local file beside a Chroma
// store) builds no vector index from the documents it holds, keeps none
// through its writes, and still answers a search that comes anyway as the
// indexed store does. Reopened without the option, its index is whole.
func TestWithoutSearchIndexBuildsNoIndex(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ada.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	conv := core.NewConversationID()
	var docs []core.Document
	for i := range 12 {
		docs = append(docs, memoryDoc(fmt.Sprintf("memory %d: Sam likes topic %d", i, i%4), core.ScopeGlobal, 3),
			turnDoc(conv, "", i, fmt.Sprintf("turn %d about coffee", i), time.Now()))
	}
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	queries := []core.VectorQuery{
		{Filter: core.Filter{Type: core.DocMemory}, Vector: embed.HashVector("Sam likes topic 2"), K: 5},
		{Filter: core.Filter{Type: core.DocTurn, ConversationID: conv}, Vector: embed.HashVector("coffee"), K: 3},
	}
	keyword := core.KeywordQuery{Filter: core.Filter{Type: core.DocMemory}, Text: "topic", K: 5}
	var want [][]core.Hit
	for _, q := range queries {
		hits, err := db.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, hits)
	}
	wantKw, err := db.KeywordSearch(ctx, keyword)
	if err != nil {
		t.Fatal(err)
	}
	if n := db.VectorIndexLen(); n != len(docs) {
		t.Fatalf("the indexed store holds %d codes, want %d", n, len(docs))
	}
	db.Close()

	db, err = Open(ctx, path, WithoutSearchIndex())
	if err != nil {
		t.Fatal(err)
	}
	if n := db.VectorIndexLen(); n != 0 || db.codes != nil {
		t.Fatalf("opened without a search index, the store holds %d codes", n)
	}
	for i, q := range queries {
		hits, err := db.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !sameHitsUpToTies(hits, want[i]) {
			t.Fatalf("query %d without the index: %v, with it %v", i, hitIDs(hits), hitIDs(want[i]))
		}
	}
	kw, err := db.KeywordSearch(ctx, keyword)
	if err != nil || len(kw) != len(wantKw) || len(kw) == 0 {
		t.Fatalf("keyword search without the index: %d hits (%v), with it %d", len(kw), err, len(wantKw))
	}
	for i := range kw {
		if kw[i].ID != wantKw[i].ID {
			t.Fatalf("keyword hit %d: %s, with the index %s", i, kw[i].ID, wantKw[i].ID)
		}
	}
	extra := memoryDoc("written while the index is off", core.ScopeGlobal, 3)
	if err := db.Put(ctx, extra); err != nil {
		t.Fatal(err)
	}
	if err := db.Delete(ctx, docs[0].ID, core.DocMemory); err != nil {
		t.Fatal(err)
	}
	if n := db.VectorIndexLen(); n != 0 {
		t.Fatalf("writes built an index of %d codes", n)
	}
	db.Close()

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := db.VectorIndexLen(); n != len(docs) {
		t.Fatalf("reopened with the index: %d codes, want %d", n, len(docs))
	}
	checkIndex(t, db, []string{"written while the index is off", "coffee"})
}
