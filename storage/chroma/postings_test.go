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

// postingsOfTerm returns the ids of the documents whose postings hold
// stem, within no filter, straight from its shard.
func postingsOfTerm(t *testing.T, s *Store, stem string) []string {
	t.Helper()
	ps, err := s.postingsOf(context.Background(), stem, nil)
	if err != nil {
		t.Fatal(err)
	}
	var docs []string
	for _, p := range ps {
		docs = append(docs, p.doc)
	}
	slices.Sort(docs)
	return docs
}

func hitIDs(hits []core.KeywordHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	slices.Sort(out)
	return out
}

// A word that went (a memory deleted, one left without its source turn,
// a memory's text rewritten, an import's prune) is found by no keyword
// search, and no posting of it is left in the postings' collections.
func TestForgottenWordsLeaveThePostings(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "forgetpostings")
	if !s.backfill.complete() {
		t.Fatal("a new store's postings should be complete at Open")
	}
	now := time.Now().UTC()
	conv := core.NewConversationID()
	turn := testTurn(conv, 0, "user", "my locker code is quetzalcoatl", now)
	learnt := testMemory("Locker code: quetzalcoatl", now)
	learnt.Meta.SourceIDs = []string{turn.ID}
	deleted := testMemory("Sam's bike is a brompton", now)
	rewritten := testMemory("Sam's cat is called Zanzibar", now)
	pruned := testMemory("The wifi password is xylophone", now)
	if err := s.Put(ctx, turn, learnt, deleted, rewritten, pruned); err != nil {
		t.Fatal(err)
	}
	find := func(word string) []string {
		t.Helper()
		hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: word, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		return hitIDs(hits)
	}
	if got := find("quetzalcoatl"); len(got) != 2 {
		t.Fatalf("before: quetzalcoatl finds %v, want the turn and the memory", got)
	}
	if _, err := s.Apply(ctx, core.Change{Delete: []string{turn.ID, deleted.ID}}); err != nil {
		t.Fatal(err)
	}
	rewritten.Text = "Sam's cat is called Tibbles"
	if err := s.Put(ctx, rewritten); err != nil {
		t.Fatal(err)
	}
	if err := s.PruneImported(ctx, []string{pruned.ID}, nil); err != nil {
		t.Fatal(err)
	}
	for _, word := range []string{"quetzalcoatl", "brompton", "zanzibar", "xylophone"} {
		if got := find(word); len(got) != 0 {
			t.Errorf("%s is found after it went: %v", word, got)
		}
		if left := postingsOfTerm(t, s, stemOf(word)); len(left) != 0 {
			t.Errorf("%s is still in the postings of %v", word, left)
		}
	}
	if got := find("tibbles"); !slices.Equal(got, []string{rewritten.ID}) {
		t.Errorf("the rewritten memory's new word finds %v, want it", got)
	}
	// The words the rewrite kept keep one posting each.
	if left := postingsOfTerm(t, s, stemOf("called")); !slices.Equal(left, []string{rewritten.ID}) {
		t.Errorf("called's postings = %v, want the rewritten memory's once", left)
	}
}

// A memory moved to another scope is found within its new scope and not
// its old: its postings carry the fields the filter reads, and a rewrite
// replaces them.
func TestPostingsFollowTheFilter(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "postingsfilter")
	s.kw = keywordLimits{termDocs: 3, candidates: 6}
	now := time.Now().UTC()
	conv := core.NewConversationID()
	var docs []core.Document
	for i := range 5 { // "zeppelin" is common among turns, rare among memories
		docs = append(docs, testTurn(conv, i, "user", "we talked about the zeppelin again", now))
	}
	memory := testMemory("The user flew in a zeppelin once", now)
	if err := s.Put(ctx, append(docs, memory)...); err != nil {
		t.Fatal(err)
	}
	search := func(f core.Filter) []string {
		t.Helper()
		hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "zeppelin", K: 10, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		return hitIDs(hits)
	}
	global := core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}}
	entity := core.Filter{Type: core.DocMemory, Scopes: []string{"entity:sam"}}
	if got := search(global); !slices.Equal(got, []string{memory.ID}) {
		t.Fatalf("memories: %v, want the memory", got)
	}
	if got := search(core.Filter{}); len(got) != 0 {
		t.Fatalf("no filter: %v, want none (zeppelin is in 6 documents, more than 3)", got)
	}
	if got := search(core.Filter{Type: core.DocTurn, ConversationID: conv}); len(got) != 0 {
		t.Fatalf("the conversation's turns: %v, want none (zeppelin is in its 5 turns, more than 3)", got)
	}
	memory.Meta.Scope, memory.Meta.Entity = "entity:sam", "sam"
	if err := s.Put(ctx, memory); err != nil {
		t.Fatal(err)
	}
	if got := search(global); len(got) != 0 {
		t.Errorf("global memories after the move: %v, want none", got)
	}
	if got := search(entity); !slices.Equal(got, []string{memory.ID}) {
		t.Errorf("sam's memories after the move: %v, want the memory", got)
	}
	s.kw = keywordLimits{termDocs: maxTermDocs, candidates: maxCandidates}
	if left := postingsOfTerm(t, s, "zeppelin"); len(left) != 6 {
		t.Errorf("zeppelin's postings: %d, want 6 (one per document: the move replaced the memory's)", len(left))
	}
}

// A store written before the postings gets them in the background: its
// keyword searches find the same documents before (by $contains) and
// after, and the marker says they are complete to the next Open.
func TestPostingsBackfill(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "backfill")
	now := time.Now().UTC()
	var docs []core.Document
	for i := range 2*getPage + 5 { // three pages of the backfill
		docs = append(docs, testMemory("memory number "+strings.Repeat("x", 1+i%7)+" of the albatross", now))
	}
	rare := testMemory("the user keeps a capybara", now)
	if err := s.Put(ctx, append(docs, rare)...); err != nil {
		t.Fatal(err)
	}
	// What a store of the version before looks like: no postings, no
	// marker.
	for i := range postingShards {
		if err := s.c.call(ctx, http.MethodDelete, s.c.db+"/collections/"+shardName(i), nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.c.deleteIDs(ctx, s.stmeta, []string{postingsMarkerID}); err != nil {
		t.Fatal(err)
	}
	again, err := Open(ctx, strings.TrimSuffix(s.c.root, "/api/v2")+"?database=backfill")
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	// Searches answer while the backfill runs (or after: either way the
	// same documents).
	hits, err := again.KeywordSearch(ctx, core.KeywordQuery{Text: "capybara", K: 5})
	if err != nil || !slices.Equal(hitIDs(hits), []string{rare.ID}) {
		t.Fatalf("during the backfill: %v (%v), want the capybara memory", hitIDs(hits), err)
	}
	if err := again.backfill.wait(ctx); err != nil {
		t.Fatal(err)
	}
	if !again.backfill.complete() {
		t.Fatal("the backfill ended incomplete")
	}
	if left := postingsOfTerm(t, again, stemOf("capybara")); !slices.Equal(left, []string{rare.ID}) {
		t.Fatalf("capybara's postings = %v, want the memory's", left)
	}
	if n := len(postingsOfTerm(t, again, stemOf("albatross"))); n != maxTermDocs+1 {
		t.Fatalf("albatross's postings read = %d, want %d (the cap: every memory has one)", n, maxTermDocs+1)
	}
	hits, err = again.KeywordSearch(ctx, core.KeywordQuery{Text: "capybara", K: 5})
	if err != nil || !slices.Equal(hitIDs(hits), []string{rare.ID}) {
		t.Fatalf("after the backfill: %v (%v), want the capybara memory", hitIDs(hits), err)
	}
	third, err := Open(ctx, strings.TrimSuffix(s.c.root, "/api/v2")+"?database=backfill")
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	if !third.backfill.complete() {
		t.Fatal("the next Open should find the marker and not backfill again")
	}
}
