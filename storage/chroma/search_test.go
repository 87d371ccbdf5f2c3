package chroma

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// A word in more than maxTermDocs turns but one memory is rare for a
// memory search: the filter goes to Chroma, so the memory is found.
func TestKeywordSearchCommonnessWithinFilter(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "commonness")
	now := time.Now().UTC()
	conv := core.NewConversationID()
	var docs []core.Document
	for i := range maxTermDocs + 1 {
		docs = append(docs, testTurn(conv, i, "user", "we talked about the zeppelin again", now))
	}
	memory := testMemory("The user flew in a zeppelin once", now)
	if err := s.Put(ctx, append(docs, memory)...); err != nil {
		t.Fatal(err)
	}
	hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "zeppelin", K: 5, Filter: core.Filter{Type: core.DocMemory}})
	if err != nil || len(hits) != 1 || hits[0].ID != memory.ID || len(hits[0].Embedding) != core.Dim {
		t.Fatalf("hits = %d (%v), want the memory", len(hits), err)
	}
}

// Each term is counted once, and the rare terms' candidates come in one
// get; when that get is cut (more than the cap), the terms are counted
// again and the rare ones' candidates read whole. Either way the search
// finds what the terms kept match, and nothing a common term alone does.
func TestKeywordSearchCutCandidates(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "cut")
	s.kw = keywordLimits{termDocs: 3, candidates: 6}
	now := time.Now().UTC()
	var docs []core.Document
	add := func(n int, text string) []string {
		var ids []string
		for range n {
			d := testMemory(text, now)
			docs, ids = append(docs, d), append(ids, d.ID)
		}
		return ids
	}
	add(8, "coffee in the morning")
	rare := add(1, "coffee in zanzibar")
	var spread []string
	for _, w := range []string{"kettle", "saucer", "teapot"} {
		spread = append(spread, add(3, "the "+w+" on the shelf")...)
	}
	if err := s.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	ids := func(hits []core.KeywordHit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.ID)
		}
		slices.Sort(out)
		return out
	}
	// "coffee" is in 9 documents, more than 3: left out.
	hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "coffee zanzibar", K: 10})
	if err != nil || !slices.Equal(ids(hits), rare) || len(hits[0].Embedding) != core.Dim {
		t.Fatalf("hits = %v (%v), want the zanzibar memory alone", ids(hits), err)
	}
	// The verdicts are remembered: the next search counts nothing.
	if common, known := s.terms.verdict(termScope(nil), "coffee", time.Now()); !common || !known {
		t.Fatal("coffee should be remembered as common")
	}
	if common, known := s.terms.verdict(termScope(nil), "zanzibar", time.Now()); common || !known {
		t.Fatal("zanzibar should be remembered as rare")
	}
	log := &requestLog{next: s.c.http.Transport}
	if log.next == nil {
		log.next = http.DefaultTransport
	}
	s.c.http.Transport = log
	hits, err = s.KeywordSearch(ctx, core.KeywordQuery{Text: "zanzibar coffee", K: 10})
	if err != nil || !slices.Equal(ids(hits), rare) {
		t.Fatalf("again: hits = %v (%v), want the zanzibar memory alone", ids(hits), err)
	}
	// With the verdicts known: one get of the rare terms' candidates, one
	// of the chosen hits' metadata and vectors, whatever the query's words
	// (the store's count, kept a minute, is not a get).
	paths := log.take()
	if gets := slices.DeleteFunc(paths, func(p string) bool { return !strings.HasSuffix(p, "/get") }); len(gets) > 2 {
		t.Errorf("a search with remembered verdicts sent %d gets, want 2: %v", len(gets), gets)
	}
	// Three rare terms, 9 documents together, as many as three rare terms
	// may match: one get, every match ranked.
	hits, err = s.KeywordSearch(ctx, core.KeywordQuery{Text: "kettle saucer teapot", K: 10})
	slices.Sort(spread)
	if err != nil || !slices.Equal(ids(hits), spread) {
		t.Fatalf("hits = %v (%v), want the 9 kitchen memories", ids(hits), err)
	}
	// "kettle" becomes common while remembered as rare: the get holds
	// more than three rare terms may match (11 > 9), is cut, the terms
	// are counted again, and kettle's documents alone are left out.
	docs = docs[:0]
	add(2, "a kettle")
	if err := s.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	hits, err = s.KeywordSearch(ctx, core.KeywordQuery{Text: "kettle saucer teapot", K: 10})
	if err != nil || len(hits) != 6 {
		t.Fatalf("hits = %v (%v), want the 6 saucer and teapot memories", ids(hits), err)
	}
	if common, known := s.terms.verdict(termScope(nil), "kettle", time.Now()); !common || !known {
		t.Fatal("kettle should be remembered as common after the cut")
	}
}

// The store's count is reused for a minute, but not an empty store's:
// a memory written after a search of the empty store is found at once.
func TestKeywordSearchAfterFirstWrite(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "firstwrite")
	if hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "zeppelin", K: 5}); err != nil || len(hits) != 0 {
		t.Fatalf("empty store: hits = %d (%v)", len(hits), err)
	}
	memory := testMemory("The user flew in a zeppelin once", time.Now().UTC())
	if err := s.Put(ctx, memory); err != nil {
		t.Fatal(err)
	}
	hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "zeppelin", K: 5})
	if err != nil || len(hits) != 1 || hits[0].ID != memory.ID {
		t.Fatalf("hits = %d (%v), want the memory", len(hits), err)
	}
}
