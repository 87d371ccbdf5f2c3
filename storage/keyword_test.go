package storage

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

// checkKeywordIndex fails unless the FTS index holds exactly the documents'
// texts: FTS5's integrity check compares an external-content index with
// its content table, so a missing or orphan row fails it.
func checkKeywordIndex(t *testing.T, db *DB, after string) {
	t.Helper()
	ctx := context.Background()
	if _, err := db.write.ExecContext(ctx, "INSERT INTO documents_fts (documents_fts, rank) VALUES ('integrity-check', 1)"); err != nil {
		t.Fatalf("after %s: keyword index out of step: %v", after, err)
	}
	var docs, indexed int
	db.read.QueryRowContext(ctx, "SELECT count(*) FROM documents").Scan(&docs)
	db.read.QueryRowContext(ctx, "SELECT count(*) FROM documents_fts_docsize").Scan(&indexed)
	if docs != indexed {
		t.Fatalf("after %s: %d documents, %d indexed", after, docs, indexed)
	}
}

func keywordIDs(t *testing.T, db *DB, text string, f core.Filter) []string {
	t.Helper()
	hits, err := db.KeywordSearch(context.Background(), core.KeywordQuery{Filter: f, Text: text, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range hits {
		if h.BM25 <= 0 {
			t.Fatalf("BM25 %v for %q", h.BM25, h.Text)
		}
		ids = append(ids, h.ID)
	}
	return ids
}

// TestKeywordIndexFollowsEveryWrite checks the index after put, replace,
// delete, delete-where (retention), the provenance cascade and reindex.
func TestKeywordIndexFollowsEveryWrite(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	if err := db.CheckEmbedder(ctx, embed.HashName); err != nil {
		t.Fatal(err)
	}
	conv, room := core.NewConversationID(), "!r:example.org"
	old := time.Now().Add(-72 * time.Hour)
	turn := turnDoc(conv, room, 0, "Bartholomew planted tulips", old)
	m := memoryDoc("Bartholomew likes tulips", core.ScopeGlobal, 3)
	m.Meta.SourceIDs, m.Meta.RoomID = []string{turn.ID}, room
	other := memoryDoc("Quentin collects stamps", core.ScopeGlobal, 3)
	if err := db.Put(ctx, turn, m, other); err != nil {
		t.Fatal(err)
	}
	checkKeywordIndex(t, db, "put")
	if got := keywordIDs(t, db, "who planted tulips, Bartholomew?", core.Filter{Type: core.DocMemory}); len(got) != 1 || got[0] != m.ID {
		t.Fatalf("keyword search within memories: %v", got)
	}
	m.Text = "Bartholomew likes roses"
	if err := db.Put(ctx, m); err != nil {
		t.Fatal(err)
	}
	checkKeywordIndex(t, db, "replace")
	if got := keywordIDs(t, db, "tulips", core.Filter{Type: core.DocMemory}); len(got) != 0 {
		t.Fatalf("the replaced text is still found: %v", got)
	}
	if err := db.Delete(ctx, other.ID, core.DocMemory); err != nil {
		t.Fatal(err)
	}
	checkKeywordIndex(t, db, "delete")
	if err := db.Reindex(ctx, &flakyEmbedder{}, 10, nil); err != nil {
		t.Fatal(err)
	}
	checkKeywordIndex(t, db, "reindex")
	if n, err := db.DeleteWhere(ctx, core.Filter{AnyRoom: true, OlderThan: time.Now().Add(-time.Hour)}); err != nil || n != 1 {
		t.Fatalf("retention: %d, %v", n, err)
	}
	checkKeywordIndex(t, db, "retention and its cascade")
	if got := keywordIDs(t, db, "Bartholomew", core.Filter{}); len(got) != 0 {
		t.Fatalf("deleted documents are still found: %v", got)
	}
}

func TestKeywordQueryIsSafe(t *testing.T) {
	db := openTestDB(t)
	if err := db.Put(context.Background(), memoryDoc(`He said "NEAR(x y)" AND NOT -- OR *`, core.ScopeGlobal, 3)); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`"NEAR(x`, `AND OR NOT`, `*`, `x" OR "y`, `-- ; DROP TABLE documents`, ``, `the of and`} {
		if _, err := db.KeywordSearch(context.Background(), core.KeywordQuery{Text: q, K: 5}); err != nil {
			t.Errorf("query %q: %v", q, err)
		}
	}
	if got := keywordIDs(t, db, `near`, core.Filter{}); len(got) != 1 {
		t.Fatalf("operator words as plain words: %v", got)
	}
}

// TestCommonWordsAreLeftOut: a word in more than 5 % of a large store adds
// nothing to the keyword search (the vectors still see it); rare words of
// the same query are searched.
func TestCommonWordsAreLeftOut(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	var docs []core.Document
	for i := range 1200 {
		text := fmt.Sprintf("weather report number %d", i)
		if i == 7 {
			text = "weather report about Zanzibar"
		}
		docs = append(docs, memoryDoc(text, core.ScopeGlobal, 3))
	}
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	if got := keywordIDs(t, db, "weather in Zanzibar", core.Filter{}); len(got) != 1 || got[0] != docs[7].ID {
		t.Fatalf("rare word: %v", got)
	}
	if got := keywordIDs(t, db, "weather report", core.Filter{}); len(got) != 0 {
		t.Fatalf("common words were searched: %d results", len(got))
	}
}

// TestExactPathReadsEverything: a search with a filter the code index does
// not carry (here age) finds the nearest document even when it is the
// oldest of more than 20,000 it selects (the exact path once read only the
// newest 20,000).
func TestExactPathReadsEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 20,001 documents; skipped with -short only")
	}
	ctx := context.Background()
	db := openTestDB(t)
	start := time.Now().Add(-time.Hour)
	target := memoryDoc("the lighthouse keeper's ledger of storms", core.ScopeGlobal, 3)
	target.Meta.Timestamp = start
	batch := []core.Document{target}
	for i := range 20000 {
		d := memoryDoc(fmt.Sprintf("routine entry %d about groceries", i), core.ScopeGlobal, 3)
		d.Meta.Timestamp = start.Add(time.Duration(i+1) * time.Millisecond)
		batch = append(batch, d)
		if len(batch) == 2000 {
			if err := db.Put(ctx, batch...); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := db.Put(ctx, batch...); err != nil {
		t.Fatal(err)
	}
	hits, err := db.Search(ctx, core.VectorQuery{Filter: core.Filter{Type: core.DocMemory, OlderThan: time.Now()},
		Vector: embed.HashVector("lighthouse keeper ledger storms"), K: 3})
	if err != nil || len(hits) == 0 || hits[0].ID != target.ID {
		t.Fatalf("nearest = %v, %v; want the oldest document %s", hits, err, target.ID)
	}
}

// TestRarestTermsWithinTheBudget: common terms go, then the rarest are
// kept while their posting lists fit maxPostings, the rarest always.
func TestRarestTermsWithinTheBudget(t *testing.T) {
	for _, tc := range []struct {
		counts []int64
		want   []string
	}{
		{[]int64{3, 400, 5000, 40}, []string{"a", "d", "b"}}, // 5000 is common (limit 5000)
		{[]int64{600, 350, 200}, []string{"c"}},              // 200 fits, +350 does not
		{[]int64{4000, 2000}, []string{"b"}},                 // the rarest even over the budget
		{[]int64{1, 2, 3}, []string{"a", "b", "c"}},          // all fit
		{[]int64{5000, 6000}, nil},                           // all common
	} {
		terms := []string{"a", "b", "c", "d"}[:len(tc.counts)]
		if got := rarestTerms(terms, tc.counts, 5000); !slices.Equal(got, tc.want) {
			t.Errorf("counts %v: kept %v, want %v", tc.counts, got, tc.want)
		}
	}
}

// keywordReference is the keyword search done wholly in SQL, the filter
// joined to the documents: what KeywordSearch must return.
func keywordReference(t *testing.T, db *DB, text string, f core.Filter, k int) []string {
	t.Helper()
	terms, err := func() ([]string, error) {
		tx, err := db.read.Begin()
		if err != nil {
			return nil, err
		}
		defer tx.Rollback()
		return db.informativeTerms(context.Background(), tx, queryTerms(text))
	}()
	if err != nil {
		t.Fatal(err)
	}
	where, args := filterSQL(f)
	where = strings.Replace(where, " WHERE ", " AND ", 1)
	rows, err := db.read.Query(`SELECT documents.id FROM documents_fts JOIN documents ON documents.rowid = documents_fts.rowid
		WHERE documents_fts MATCH ?`+where+` ORDER BY bm25(documents_fts), documents.rowid LIMIT ?`,
		append(append([]any{strings.Join(terms, " OR ")}, args...), k)...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		rows.Scan(&id)
		ids = append(ids, id)
	}
	return ids
}

// A keyword search filtered by type, scope or conversation reads the best
// matches from the FTS index alone and filters them in memory; when the
// filter's documents are rare among the matches, it joins after all. Both
// give what the join gives.
func TestKeywordSearchFiltersInMemoryLikeSQL(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	conv := core.NewConversationID()
	var docs []core.Document
	// Many short turns match the animals best; a few long memories match
	// them worst (BM25 favours short documents). Each word stays under
	// the common-word threshold (50 documents here).
	for i := range 120 {
		docs = append(docs, turnDoc(conv, "", i, fmt.Sprintf("%s %d", []string{"zebra", "okapi", "tapir"}[i%3], i), time.Now()))
	}
	for i := range 6 {
		scope := core.ScopeGlobal
		if i%2 == 0 {
			scope = "entity:bo"
		}
		docs = append(docs, memoryDoc(fmt.Sprintf("a long note %d on the zebra, the okapi and the tapir, the grass, the lions and the heat", i), scope, 3))
	}
	for i := range 40 {
		docs = append(docs, memoryDoc(fmt.Sprintf("note %d of the giraffe", i), core.ScopeGlobal, 3))
	}
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	const animals = "zebra okapi tapir"
	for _, tc := range []struct {
		text string
		f    core.Filter
		k    int
		want int
	}{
		{animals, core.Filter{Type: core.DocMemory}, 5, 5},                                         // rare among the matches: the join
		{animals, core.Filter{Type: core.DocMemory, Scopes: []string{"entity:bo"}}, 10, 3},         // fewer than k in all
		{animals, core.Filter{Type: core.DocTurn, ConversationID: conv}, 20, 20},                   // in memory
		{animals, core.Filter{Type: core.DocTurn, ConversationID: core.NewConversationID()}, 5, 0}, // nothing
		{"giraffe", core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}}, 40, 40},
		{"zebra giraffe", core.Filter{}, 40, 40},
	} {
		hits, err := db.KeywordSearch(ctx, core.KeywordQuery{Filter: tc.f, Text: tc.text, K: tc.k})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, h.ID)
		}
		want := keywordReference(t, db, tc.text, tc.f, tc.k)
		if !slices.Equal(got, want) || len(got) != tc.want {
			t.Errorf("%q %+v k=%d: got %d %v, want %d (%d) %v", tc.text, tc.f, tc.k, len(got), got, tc.want, len(want), want)
		}
	}
}
