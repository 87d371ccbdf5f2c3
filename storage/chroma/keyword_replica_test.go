package chroma

import (
	"context"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// TestRememberedDocumentsFollowAnotherReplica: the documents a rare word
// was found in are remembered for a minute, and another replica's writes
// do not reach this process's memory of them; a search within that minute
// still never returns a document the other replica moved out of the
// search's scope or deleted (each candidate's metadata is read again and
// checked against the filter).
func TestRememberedDocumentsFollowAnotherReplica(t *testing.T) {
	ctx := context.Background()
	a, b := openReplicas(t, "replicas")
	now := time.Now().UTC()
	moved, deleted, kept := testMemory("zanzibar notes one", now), testMemory("zanzibar notes two", now), testMemory("zanzibar notes three", now)
	if err := a.Put(ctx, moved, deleted, kept); err != nil {
		t.Fatal(err)
	}
	global := core.KeywordQuery{Text: "zanzibar", K: 10, Filter: core.Filter{Scopes: []string{core.ScopeGlobal}}}
	if hits, err := a.KeywordSearch(ctx, global); err != nil || len(hits) != 3 {
		t.Fatalf("first search: %d hits, %v; want 3", len(hits), err)
	}
	moved.Meta.Scope = core.EntityScope("bob")
	if err := b.Put(ctx, moved); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(ctx, deleted.ID, deleted.Meta.Type); err != nil {
		t.Fatal(err)
	}
	remembered := false
	for _, scope := range []string{termScope(nil), termScope(whereOf(global.Filter))} {
		if _, docs, fresh, known := a.terms.verdict(scope, "zanzibar", time.Now()); known && fresh && len(docs) == 3 {
			remembered = true
		}
	}
	if !remembered {
		t.Fatal("the word's three documents are not remembered: the search below would not read them by id")
	}
	hits, err := a.KeywordSearch(ctx, global)
	if err != nil || len(hits) != 1 || hits[0].ID != kept.ID {
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.ID+" ("+h.Meta.Scope+")")
		}
		t.Fatalf("after the other replica moved one and deleted one: %v, %v; want %s alone", ids, err, kept.ID)
	}
}
