package chroma

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/vecindex"
)

// A filter selecting most of the store is searched without its where
// clause (filterShares) and checked by Ada: the vector search returns the
// filter's exact nearest (the store is small enough for HNSW to be exact),
// never a document outside it, whether the share is not known yet (then
// learnt from the wide search's sample), known to be large or known to be
// small; a filter selecting one document finds it through its where
// clause.
func TestSearchWideAdmitsTheFilterOnly(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "wide")
	now := time.Now().UTC()
	conv := core.NewConversationID()
	var docs, memories []core.Document
	for i := range 100 {
		text := fmt.Sprintf("note %d about the garden, the train and item %d", i, i*7%13)
		if i%10 < 7 {
			d := testMemory(text, now)
			docs, memories = append(docs, d), append(memories, d)
		} else {
			docs = append(docs, testTurn(conv, i, "user", text, now))
		}
	}
	faq := core.Document{ID: core.NewDocID(), Text: "opening hours of the garden", Embedding: embed.HashVector("opening hours of the garden"),
		Meta: core.Metadata{Type: core.DocFAQ, Timestamp: now, Source: core.SourceChat, Scope: core.ScopeGlobal}}
	if err := s.Put(ctx, append(docs, faq)...); err != nil {
		t.Fatal(err)
	}
	memF := core.Filter{Type: core.DocMemory}
	scope := termScope(whereOf(memF))
	s.wideMin = 0                                       // a store of 101 documents
	for _, share := range []float64{-1, 0.7, 1, 0.01} { // -1: not known
		s.shares = &filterShares{}
		if share >= 0 {
			s.shares.measured(scope, share, time.Now())
		}
		for q := range 5 {
			vec := embed.HashVector(fmt.Sprintf("the train and item %d", q))
			hits, err := s.Search(ctx, core.VectorQuery{Vector: vec, K: 5, Filter: memF})
			if err != nil {
				t.Fatal(err)
			}
			exact := slices.Clone(memories)
			slices.SortFunc(exact, func(a, b core.Document) int {
				return cmp.Or(cmp.Compare(vecindex.CosineDistance(vec, a.Embedding), vecindex.CosineDistance(vec, b.Embedding)), cmp.Compare(a.ID, b.ID))
			})
			if len(hits) != 5 {
				t.Fatalf("share %v, query %d: %d hits, want 5", share, q, len(hits))
			}
			for i, h := range hits {
				if h.Meta.Type != core.DocMemory || h.Text == "" || len(h.Embedding) != core.Dim {
					t.Fatalf("share %v: hit %s is a %s (text %q, %d dimensions)", share, h.ID, h.Meta.Type, h.Text, len(h.Embedding))
				}
				// Distances, not ids: Chroma's renormalised vectors may
				// order a tie otherwise.
				if want := vecindex.CosineDistance(vec, exact[i].Embedding); math.Abs(float64(h.Distance-want)) > 1e-5 {
					t.Fatalf("share %v, query %d: hit %d at %v, the exact %dth at %v", share, q, i, h.Distance, i, want)
				}
			}
		}
		if _, known := s.shares.get(scope, time.Now()); !known {
			t.Fatalf("share %v: no share learnt, want the wide search's sample", share)
		}
	}
	hits, err := s.Search(ctx, core.VectorQuery{Vector: embed.HashVector("the train"), K: 5, Filter: core.Filter{Type: core.DocFAQ}})
	if err != nil || len(hits) != 1 || hits[0].ID != faq.ID {
		t.Fatalf("FAQ: %d hits (%v), want the FAQ", len(hits), err)
	}
}

// A keyword search whose filter is known to select most of the store asks
// without its where clause (its words counted in the whole store), and
// returns only the filter's documents.
func TestKeywordSearchWideAdmitsTheFilterOnly(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "widekw")
	now := time.Now().UTC()
	conv := core.NewConversationID()
	var docs []core.Document
	for i := range 20 {
		docs = append(docs, testMemory(fmt.Sprintf("a zanzibar memory %d", i), now), testTurn(conv, i, "user", "zanzibar zanzibar zanzibar", now))
	}
	if err := s.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	f := core.Filter{Type: core.DocMemory}
	s.shares.measured(termScope(whereOf(f)), 1, time.Now())
	hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "zanzibar", K: 30, Filter: f})
	if err != nil || len(hits) != 20 {
		t.Fatalf("hits = %d (%v), want the 20 memories", len(hits), err)
	}
	for _, h := range hits {
		if h.Meta.Type != core.DocMemory {
			t.Fatalf("hit %s is a %s", h.ID, h.Meta.Type)
		}
	}
	// The clause was left out: the word was counted in the whole store.
	if _, _, _, known := s.terms.verdict(termScope(nil), stemOf("zanzibar"), time.Now()); !known {
		t.Error("the word was counted within the where clause, want the whole store")
	}
}

// Near a question asked often, the store's nearest neighbours may be its
// earlier turns more than the store's share of them says: a probe sized
// by the memories' share then holds fewer than K memories. A second,
// wider probe, sized by the share it saw, finds them, where Chroma's
// query with the where clause would cost 290–370 ms at 100k.
func TestSearchWideProbesWiderNearACrowd(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "crowd")
	now := time.Now().UTC()
	question := "when does the harbour ferry leave on sunday"
	conv := core.NewConversationID()
	var docs, memories []core.Document
	for i := range 100 { // the question, asked a hundred times
		docs = append(docs, testTurn(conv, i, "user", question, now))
	}
	words := []string{"ferry", "harbour", "sunday", "garden", "train", "tea", "music", "doctor"}
	for i := range 1700 {
		d := testMemory(fmt.Sprintf("memory %d of the %s and the %s", i, words[i%len(words)], words[i*3%len(words)]), now)
		docs, memories = append(docs, d), append(memories, d)
	}
	if err := s.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	memF := core.Filter{Type: core.DocMemory}
	s.wideMin = 0
	s.shares.measured(termScope(whereOf(memF)), 0.94, time.Now()) // the store's share
	log := &bodyLog{next: http.DefaultTransport}
	s.c.http.Transport = log
	vec := embed.HashVector(question)
	const k = 60
	hits, err := s.Search(ctx, core.VectorQuery{Vector: vec, K: k, Filter: memF})
	if err != nil {
		t.Fatal(err)
	}
	exact := slices.Clone(memories)
	slices.SortFunc(exact, func(a, b core.Document) int {
		return cmp.Compare(vecindex.CosineDistance(vec, a.Embedding), vecindex.CosineDistance(vec, b.Embedding))
	})
	if len(hits) != k {
		t.Fatalf("%d hits, want %d", len(hits), k)
	}
	for i, h := range hits {
		if h.Meta.Type != core.DocMemory {
			t.Fatalf("hit %d is a %s", i, h.Meta.Type)
		}
		if want := vecindex.CosineDistance(vec, exact[i].Embedding); math.Abs(float64(h.Distance-want)) > 1e-5 {
			t.Fatalf("hit %d at %v, the exact %dth at %v", i, h.Distance, i, want)
		}
	}
	for _, b := range log.bodies {
		if strings.Contains(b, "query_embeddings") && strings.Contains(b, `"where"`) {
			t.Errorf("the search sent a query with the where clause: %.200s", b)
		}
	}
}

// A filter's share of the store is not what a question's neighbourhood
// says: after questions whose neighbours are all earlier turns alike
// (each then asks Chroma with the where clause), a question elsewhere is
// still searched without it.
func TestShareIsNotTheCrowdsShare(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "crowdshare")
	now := time.Now().UTC()
	question := "when does the harbour ferry leave on sunday"
	conv := core.NewConversationID()
	var docs []core.Document
	for i := range 500 { // the question, asked five hundred times in as many ways
		docs = append(docs, testTurn(conv, i, "user", fmt.Sprintf("%s %d", question, i), now))
	}
	words := []string{"ferry", "harbour", "sunday", "garden", "train", "tea", "music", "doctor"}
	for i := range 1700 {
		docs = append(docs, testMemory(fmt.Sprintf("memory %d of the %s and the %s", i, words[i%len(words)], words[i*3%len(words)]), now))
	}
	if err := s.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	memF := core.Filter{Type: core.DocMemory}
	s.wideMin = 0
	for range 6 {
		if _, err := s.Search(ctx, core.VectorQuery{Vector: embed.HashVector(question), K: 60, Filter: memF}); err != nil {
			t.Fatal(err)
		}
	}
	s.behind.wait()
	sh, _ := s.shares.get(termScope(whereOf(memF)), time.Now())
	t.Logf("share after the crowd %.3f", sh)
	log := &bodyLog{next: http.DefaultTransport}
	s.c.http.Transport = log
	if _, err := s.Search(ctx, core.VectorQuery{Vector: embed.HashVector("the garden and the train"), K: 60, Filter: memF}); err != nil {
		t.Fatal(err)
	}
	for _, b := range log.bodies {
		if strings.Contains(b, "query_embeddings") && strings.Contains(b, `"where"`) {
			share, _ := s.shares.get(termScope(whereOf(memF)), time.Now())
			t.Errorf("a question away from the crowd sent a query with the where clause (the memories' share taken as %.2f, in the store 0.77)", share)
		}
	}
}

// A measured share is not moved by a search's sample, and is measured
// once per shareFor; a sampled one is averaged with the next sample.
func TestMeasuredShareStands(t *testing.T) {
	c := &filterShares{}
	now := time.Now()
	c.set("s", 0.8, now)
	c.set("s", 0.2, now)
	if got, _ := c.get("s", now); got != 0.5 {
		t.Errorf("two samples: %v, want their mean 0.5", got)
	}
	if !c.claim("s", now) || c.claim("s", now) {
		t.Error("a sampled share was not claimed for measuring once")
	}
	c.measured("s", 0.77, now)
	c.release("s")
	c.set("s", 0, now)
	if got, _ := c.get("s", now); got != 0.77 {
		t.Errorf("after a sample of 0 the measured share is %v, want 0.77", got)
	}
	if c.claim("s", now) {
		t.Error("a fresh measured share was claimed for measuring again")
	}
	if !c.claim("s", now.Add(shareFor)) {
		t.Error("a measured share older than shareFor was not measured again")
	}
}

// A keyword search of most of the store ranks the whole store's
// candidates: turns holding more of a question's words than any memory
// come first, and are left out by their metadata alone; the vectors of
// the K memories chosen are read once.
func TestWideKeywordSearchReadsTheChosenVectorsOnce(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "widekeyword")
	now := time.Now().UTC()
	conv := core.NewConversationID()
	var docs []core.Document
	for i := range 20 {
		docs = append(docs, testTurn(conv, i, "user", fmt.Sprintf("ferry harbour sunday %d", i), now))
		docs = append(docs, testMemory(fmt.Sprintf("a note %d on the ferry", i), now))
	}
	for i := range 420 {
		docs = append(docs, testMemory(fmt.Sprintf("note %d about the garden and item %d", i, i*7%13), now))
	}
	if err := s.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	memF := core.Filter{Type: core.DocMemory}
	s.shares.measured(termScope(whereOf(memF)), 0.96, time.Now())
	log := &bodyLog{next: http.DefaultTransport}
	s.c.http.Transport = log
	hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "ferry harbour sunday", K: 10, Filter: memF})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 10 {
		t.Fatalf("%d hits, want 10", len(hits))
	}
	for _, h := range hits {
		if h.Meta.Type != core.DocMemory || len(h.Embedding) != core.Dim || !strings.Contains(h.Text, "ferry") {
			t.Fatalf("hit %s: a %s %q with %d numbers", h.ID, h.Meta.Type, h.Text, len(h.Embedding))
		}
	}
	vectorReads := 0
	for _, b := range log.bodies {
		if strings.Contains(b, `"embeddings"`) {
			vectorReads++
		}
	}
	if vectorReads != 1 {
		t.Errorf("%d reads of vectors, want one, of the 10 chosen", vectorReads)
	}
}
