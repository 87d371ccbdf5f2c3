package core_test

import (
	"context"
	"fmt"
	"math"
	"os"
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
		got, err := searchMemories(ctx, svc, core.MemoryQuery{Text: query, Limit: 3})
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
		if _, err := svc.CreateMemory(ctx, core.MemoryInput{Text: text, Importance: new(i + 2)}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := searchMemories(ctx, svc, core.MemoryQuery{Text: "what coffee does Sam drink", Limit: 5})
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

// TestFloorKeepsWeakFAQsOut: an FAQ entry that shares no word with the
// prompt (similarity 0.07 from character n-grams alone) stays out of the
// context at the default floor and gets in with the floor at 0, so it is
// the floor that keeps it out.
func TestFloorKeepsWeakFAQsOut(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "faq.jsonl")
	os.WriteFile(path, []byte(`{"question": "How do I reset Ada?", "answer": "Say !ada clear in the room.", "topic": "help"}`+"\n"), 0o644)
	faqsFor := func(floor float64) int {
		opts := core.DefaultOptions()
		opts.RelevanceFloor = floor
		svc := newServiceWith(t, opts)
		if _, err := svc.LoadFAQFile(ctx, path); err != nil {
			t.Fatal(err)
		}
		p, err := svc.DebugPrompt(ctx, core.ChatRequest{Prompt: "Which tea should I brew for Sam tonight?"})
		if err != nil {
			t.Fatal(err)
		}
		return len(p.Used.FAQs)
	}
	if with, without := faqsFor(core.DefaultRelevanceFloor), faqsFor(0); with != 0 || without != 1 {
		t.Fatalf("FAQs in the context: %d at the default floor (want 0), %d without a floor (want 1)", with, without)
	}
}

// TestNearDuplicateRefreshes: a memory whose text differs but whose
// similarity reaches RAG_MEMORY_DEDUP refreshes the existing one; one below
// it is a memory of its own.
func TestNearDuplicateRefreshes(t *testing.T) {
	ctx := context.Background()
	opts := core.DefaultOptions()
	opts.MemoryDedup = 0.8
	svc := newServiceWith(t, opts)
	first, err := svc.CreateMemory(ctx, core.MemoryInput{Text: "Sam's bike is a red Gazelle from 2019"})
	if err != nil {
		t.Fatal(err)
	}
	near, err := svc.CreateMemory(ctx, core.MemoryInput{Text: "Sam's bike is a red Gazelle from 2019, bought used", Importance: new(5)})
	if err != nil || !*near.Deduplicated || near.ID != first.ID || near.Meta.Importance != 5 {
		t.Fatalf("near duplicate: %+v, %v", near, err)
	}
	other, err := svc.CreateMemory(ctx, core.MemoryInput{Text: "Kim plays the cello"})
	if err != nil || *other.Deduplicated || other.ID == first.ID {
		t.Fatalf("unrelated memory: %+v, %v", other, err)
	}
}

// searchMemories is the first page of a memory search.
func searchMemories(ctx context.Context, svc *core.Service, q core.MemoryQuery) ([]core.Memory, error) {
	page, err := svc.MemoryPage(ctx, q)
	return page.Items, err
}
