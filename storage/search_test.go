package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/vecindex"
)

// Every document is found by its own vector, and after a reindex rewrote
// the codes.
func TestSearchFindsEveryDocument(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	var docs []core.Document
	for i := range 16 {
		docs = append(docs, memoryDoc(fmt.Sprintf("memory number %d about topic %d", i, i*7), core.ScopeGlobal, 3))
	}
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	check := func() {
		t.Helper()
		for _, d := range docs {
			hits, err := db.Search(ctx, core.VectorQuery{Filter: core.Filter{Type: core.DocMemory}, Vector: d.Embedding, K: 1})
			if err != nil || len(hits) != 1 || hits[0].ID != d.ID || hits[0].Distance > 1e-6 {
				t.Fatalf("search for %q: %+v, %v", d.Text, hits, err)
			}
		}
	}
	check()
	if err := db.Reindex(ctx, embed.Hash{}, 5, nil); err != nil {
		t.Fatal(err)
	}
	check()
}

func TestCandidateCount(t *testing.T) {
	for _, tc := range []struct{ k, rows, want int }{{1, 1000, minCandidates}, {10, 1000, minCandidates}, {80, 1000, 160},
		{3000, 1000, 6000}, {10, largeStore, largeCandidates}, {80, largeStore, 160}} {
		if got := candidateCount(tc.k, tc.rows); got != tc.want {
			t.Errorf("candidateCount(%d, %d) = %d, want %d", tc.k, tc.rows, got, tc.want)
		}
	}
}

// TestCandidatesAreSizedByTheFilter: a search rescores the candidates of a
// large search only when its filter admits a large number of rows, not
// when the store holds them (a scope's search in a large store rescores
// as many as in a small one).
func TestCandidatesAreSizedByTheFilter(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	var docs []core.Document
	for i := range 400 {
		scope := core.ScopeGlobal
		if i%10 < 3 {
			scope = core.EntityScope("alpha") // 120 rows
		}
		docs = append(docs, memoryDoc(fmt.Sprintf("note %d about the project meeting %d", i, i*7), scope, 3))
	}
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	db.effort = searchEffort{Effort: vecindex.Effort{LargeRows: 300}}
	q := embed.HashVector("project meeting")
	for _, tc := range []struct {
		name   string
		scopes []string
		want   int
	}{
		{"the whole store", []string{core.ScopeGlobal, core.EntityScope("alpha")}, largeCandidates},
		{"one scope", []string{core.EntityScope("alpha")}, minCandidates},
	} {
		f := core.Filter{Type: core.DocMemory, Scopes: tc.scopes}
		if got := db.ScanCodes(core.VectorQuery{Filter: f, Vector: q, K: 10}); got != tc.want {
			t.Errorf("%s: %d candidates, want %d", tc.name, got, tc.want)
		}
	}
}
