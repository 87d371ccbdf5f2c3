package core_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
)

func newServiceWith(t *testing.T, opts core.Options) *core.Service {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}}, opts)
	t.Cleanup(svc.Close)
	return svc
}

// TestRareNameIsFoundByKeywords: a memory whose only link to the query is a
// rare name drowns among texts that share the query's common words; the
// vectors miss it, BM25's weight on the rare word finds it, and hybrid
// keeps it.
func TestRareNameIsFoundByKeywords(t *testing.T) {
	ctx := context.Background()
	target := "Bartholomew wants the quiet corner table"
	query := "what did Bartholomew say about the garden party on saturday"
	found := map[string]bool{}
	for _, mode := range []string{core.SearchVector, core.SearchKeyword, core.SearchHybrid} {
		opts := core.DefaultOptions()
		opts.SearchMode = mode
		svc := newServiceWith(t, opts)
		for i := range 40 {
			text := fmt.Sprintf("the garden party on saturday needs %d more chairs and a say about the music", i)
			if _, err := svc.CreateMemory(ctx, core.MemoryInput{Text: text}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := svc.CreateMemory(ctx, core.MemoryInput{Text: target}); err != nil {
			t.Fatal(err)
		}
		got, err := svc.SearchMemories(ctx, core.MemoryQuery{Text: query, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range got {
			found[mode] = found[mode] || m.Text == target
		}
	}
	if found[core.SearchVector] || !found[core.SearchKeyword] || !found[core.SearchHybrid] {
		t.Fatalf("target in the top 3 by mode: %v (want vector false, keyword and hybrid true)", found)
	}
}

// TestExplanationsAddUpToTheScore: every searched memory explains its score
// term by term, and the terms add up to it.
func TestExplanationsAddUpToTheScore(t *testing.T) {
	ctx := context.Background()
	svc := newServiceWith(t, core.DefaultOptions())
	for i, text := range []string{"Sam drinks black coffee", "Sam's coffee machine is broken", "Kim likes tea"} {
		if _, err := svc.CreateMemory(ctx, core.MemoryInput{Text: text, Importance: i + 2}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := svc.SearchMemories(ctx, core.MemoryQuery{Text: "what coffee does Sam drink", Limit: 5})
	if err != nil || len(got) < 2 {
		t.Fatalf("search: %v, %v", got, err)
	}
	for _, m := range got {
		ex := m.Explain
		if ex == nil || ex.RelevanceTerm == nil || ex.ImportanceTerm == nil || ex.RecencyTerm == nil {
			t.Fatalf("%q has no explanation: %+v", m.Text, ex)
		}
		if sum := *ex.RelevanceTerm + *ex.ImportanceTerm + *ex.RecencyTerm; math.Abs(sum-*m.Score) > 1e-3 {
			t.Errorf("%q: terms add up to %v, score %v", m.Text, sum, *m.Score)
		}
		if ex.VectorRank == nil && ex.KeywordRank == nil {
			t.Errorf("%q was proposed by neither search", m.Text)
		}
		if want := 1 - (1-ex.Similarity)*(1-ex.KeywordRelevance); math.Abs(ex.Relevance-want) > 1e-3 {
			t.Errorf("%q: relevance %v, want %v", m.Text, ex.Relevance, want)
		}
	}
}
