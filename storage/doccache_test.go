package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/vecindex"
)

// A search after a write never returns the cached version of a document
// the write replaced or deleted.
func TestSearchSeesWritesPastTheDocumentCache(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	m := memoryDoc("Sam drinks black coffee", core.ScopeGlobal, 3)
	other := memoryDoc("the office closes at six", core.ScopeGlobal, 3)
	if err := db.Put(ctx, m, other); err != nil {
		t.Fatal(err)
	}
	search := func(text string) []core.Hit {
		t.Helper()
		hits, err := db.Search(ctx, core.VectorQuery{Filter: core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}},
			Vector: embed.HashVector(text), K: 2})
		if err != nil {
			t.Fatal(err)
		}
		kw, err := db.KeywordSearch(ctx, core.KeywordQuery{Filter: core.Filter{Type: core.DocMemory}, Text: text, K: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range kw {
			hits = append(hits, core.Hit{Document: h.Document})
		}
		return hits
	}
	search("Sam coffee") // cached now
	m.Text, m.Embedding, m.Meta.Importance = "Sam drinks green tea", embed.HashVector("Sam drinks green tea"), 5
	if err := db.Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	for _, h := range search("Sam coffee tea") {
		if h.ID == m.ID && (h.Text != m.Text || h.Meta.Importance != 5 || vecindex.CosineDistance(h.Embedding, m.Embedding) > 1e-6) {
			t.Fatalf("replaced memory came back as %q (importance %d)", h.Text, h.Meta.Importance)
		}
	}
	if err := db.Delete(ctx, m.ID, core.DocMemory); err != nil {
		t.Fatal(err)
	}
	for _, h := range search("Sam coffee tea") {
		if h.ID == m.ID {
			t.Fatalf("deleted memory %s returned", h.ID)
		}
	}
}

// A document read before a write committed is not cached after it: the
// reader's snapshot may be older than the write.
func TestDocumentCacheRefusesReadsOlderThanAWrite(t *testing.T) {
	c := newDocCache()
	epoch := c.begin()
	c.forget([]vecindex.Op{{Rowid: 1}})
	c.add(epoch, 1, core.Document{ID: "stale"})
	if _, ok := c.get(1); ok {
		t.Fatal("a read from before the write was cached")
	}
	c.add(c.begin(), 1, core.Document{ID: "fresh"})
	if d, ok := c.get(1); !ok || d.ID != "fresh" {
		t.Fatalf("cache holds %v, %v", d, ok)
	}
}

// swappedEmbedder embeds a text as the hash embedder embeds another: the
// text of swap, for a reindex that changes vectors in place (same rowids).
type swappedEmbedder map[string]string

func (s swappedEmbedder) Name() string { return "swapped:test" }
func (s swappedEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if o, ok := s[t]; ok {
			t = o
		}
		out[i] = embed.HashVector(t)
	}
	return out, nil
}

// A vector search rescores cached candidates from the cache: it answers as
// it does cold, and a reindex that changes a cached document's vector in
// place is seen at once.
func TestSearchRescoresCachedDocumentsLikeStoredOnes(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	var docs []core.Document
	for i := range 30 {
		docs = append(docs, memoryDoc(fmt.Sprintf("note %d on gardening, tulips and bulbs, row %d", i, i%4), core.ScopeGlobal, 3))
	}
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	q := core.VectorQuery{Filter: core.Filter{Type: core.DocMemory}, Vector: embed.HashVector("tulips in row 2"), K: 5}
	cold, err := db.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs { // every candidate cached
		if _, err := db.Search(ctx, core.VectorQuery{Filter: q.Filter, Vector: d.Embedding, K: 30}); err != nil {
			t.Fatal(err)
		}
	}
	warm, err := db.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if !sameHitsUpToTies(warm, cold) {
		t.Fatalf("warm search %v, cold %v", hitIDs(warm), hitIDs(cold))
	}
	// The farthest note gets the query's own vector.
	cold, _ = db.Search(ctx, core.VectorQuery{Filter: q.Filter, Vector: q.Vector, K: 30})
	farthest := cold[len(cold)-1]
	if err := db.Reindex(ctx, swappedEmbedder{farthest.Text: "tulips in row 2"}, 10, nil); err != nil {
		t.Fatal(err)
	}
	got, err := db.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || got[0].ID != farthest.ID || got[0].Distance > 1e-6 {
		t.Fatalf("after the reindex, search = %v (%v); want %s first, at distance 0", hitIDs(got), got[0].Distance, farthest.ID)
	}
}
