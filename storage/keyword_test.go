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
	if gone, err := db.DeleteWhere(ctx, core.Filter{AnyRoom: true, OlderThan: time.Now().Add(-time.Hour)}); err != nil || len(gone.IDs) != 1 {
		t.Fatalf("retention: %d, %v", len(gone.IDs), err)
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

// TestRarestTermsWithinTheBudget: common terms go, then the rarest find
// while their posting lists fit maxPostings, the rarest always, and the
// others score.
func TestRarestTermsWithinTheBudget(t *testing.T) {
	for _, tc := range []struct {
		counts      []int64
		find, score []string
	}{
		{[]int64{3, 400, 5000, 40}, []string{"a", "d", "b"}, nil},                                // 5000 is common (limit 5000)
		{[]int64{600, 350, 200}, []string{"c"}, []string{"b", "a"}},                              // 200 fits, +350 does not
		{[]int64{4000, 2000}, []string{"b"}, []string{"a"}},                                      // the rarest even over the budget
		{[]int64{1, 2, 3}, []string{"a", "b", "c"}, nil},                                         // all fit
		{[]int64{300, 100, 150}, []string{"b", "c"}, []string{"a"}},                              // 100+150 fit, +300 does not
		{[]int64{5000, 6000}, nil, nil},                                                          // all common
		{[]int64{4900, 4950, 4800, 10, 4700, 4600}, []string{"d"}, []string{"f", "e", "c", "a"}}, // 18,900 scored, +4950 would be over maxScorePostings
	} {
		terms := []string{"a", "b", "c", "d", "e", "f"}[:len(tc.counts)]
		if got := rarestTerms(terms, tc.counts, 5000, maxPostings); !slices.Equal(got.find, tc.find) || !slices.Equal(got.score, tc.score) {
			t.Errorf("counts %v: find %v and score %v, want %v and %v", tc.counts, got.find, got.score, tc.find, tc.score)
		}
	}
}

// keywordReference is the keyword search done wholly in SQL, the filter
// joined to the documents: what KeywordSearch must return. Its candidates
// are the documents holding a find term, those holding a score term too
// first, by BM25 over every informative term; the k chosen come best BM25
// first.
func keywordReference(t *testing.T, db *DB, text string, f core.Filter, k int) []string {
	t.Helper()
	kt, err := func() (keywordTerms, error) {
		tx, err := db.read.Begin()
		if err != nil {
			return keywordTerms{}, err
		}
		defer tx.Rollback()
		return db.informativeTerms(context.Background(), tx, queryTerms(text))
	}()
	if err != nil {
		t.Fatal(err)
	}
	if len(kt.find) == 0 {
		return nil
	}
	where, args := filterSQL(f)
	where = strings.Replace(where, " WHERE ", " AND ", 1)
	find, score := strings.Join(kt.find, " OR "), strings.Join(kt.score, " OR ")
	if score == "" {
		score = `"nowhere-at-all"`
	}
	both := "(" + find + ") AND (" + score + ")"
	query := `SELECT id, rowid, bm25 FROM (
		SELECT documents.id, documents.rowid, bm25(documents_fts) AS bm25, 0 AS g FROM documents_fts
			JOIN documents ON documents.rowid = documents_fts.rowid WHERE documents_fts MATCH ?` + where + `
		UNION ALL
		SELECT documents.id, documents.rowid, bm25(documents_fts), 1 FROM documents_fts
			JOIN documents ON documents.rowid = documents_fts.rowid WHERE documents_fts MATCH ?` + where + `
			AND documents.rowid NOT IN (SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?)
	) ORDER BY g, bm25, rowid LIMIT ?`
	all := append(append(append(append([]any{both}, args...), find), args...), score, k)
	rows, err := db.read.Query(query, all...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type hit struct {
		id string
		scored
	}
	var hits []hit
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.id, &h.rowid, &h.distance); err != nil {
			t.Fatal(err)
		}
		hits = append(hits, h)
	}
	slices.SortFunc(hits, func(a, b hit) int { return byDistance(a.scored, b.scored) })
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.id)
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

// seedChatLike writes n documents shaped like a chat store's, in one
// transaction: a tenth memories (half of them global, half of one entity's
// scope), an FAQ entry every 500, and turns in conversations of 150, whose
// ids it returns. "broad" is in every 25th document (4%: informative, and
// mostly in turns), "rare" in every 300th, "everywhere" in every 5th (a
// common word, left out); the other words make many documents of the same
// length and words, so that BM25 ties.
func seedChatLike(tb testing.TB, db *DB, n int) []string {
	var convs []string
	var batch []core.Document
	for i := range n {
		words := []string{"filler", fmt.Sprint("w", i%97), fmt.Sprint("v", i%89)}
		if i%25 == 0 {
			words = append(words, "broad")
		}
		if i%300 == 7 {
			words = append(words, "rare")
		}
		if i%5 == 0 {
			words = append(words, "everywhere")
		}
		text := strings.Join(words, " ")
		var d core.Document
		switch {
		case i%500 == 3:
			d = memoryDoc(text, core.ScopeGlobal, 0)
			d.Meta.Type, d.Meta.Topic = core.DocFAQ, "faq"
		case i%10 == 0:
			scope := core.ScopeGlobal
			if i%20 == 0 {
				scope = "entity:bo"
			}
			d = memoryDoc(text, scope, 3)
		default:
			if len(convs) == 0 || i%150 == 1 {
				convs = append(convs, core.NewConversationID())
			}
			d = turnDoc(convs[len(convs)-1], "", i%150, text, time.Now())
		}
		batch = append(batch, d)
	}
	if err := db.Put(context.Background(), batch...); err != nil {
		tb.Fatal(err)
	}
	return convs
}

// Every plan of a filtered keyword search gives what the join gives, in a
// store large enough for the common-word rule, where most matches are
// outside the filter: an FAQ among thousands of turns and memories, a
// conversation's turns, memories of one scope. The chosen plan does too.
func TestKeywordPlansAgreeWithTheJoin(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	convs := seedChatLike(t, db, 3000) // the common-word limit is 150 documents
	// "broad" is in 120 documents, "rare" in 10: within a budget of 100,
	// "rare" finds and "broad" scores, as two words of a million memories
	// in a few hundred of them each would.
	db.findPostings = 100
	plans := map[string]func(int, int, int64, int, int) keywordPlan{
		"chosen":    keywordPlanFor,
		"overfetch": func(int, int, int64, int, int) keywordPlan { return planOverfetch },
		"restrict":  func(int, int, int64, int, int) keywordPlan { return planRestrict },
		"join":      func(int, int, int64, int, int) keywordPlan { return planJoin },
		"prefilter": func(int, int, int64, int, int) keywordPlan { return planPrefilter },
	}
	for _, text := range []string{"broad", "rare", "broad rare", "everywhere broad", "w3 broad", "rare w3 broad", "nothing"} {
		for _, f := range []core.Filter{
			{Type: core.DocFAQ},
			{Type: core.DocMemory},
			{Type: core.DocMemory, Scopes: []string{"entity:bo"}},
			{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal, "entity:bo"}},
			{Type: core.DocTurn, ConversationID: convs[3]},
			{Type: core.DocSummary, ConversationID: convs[3]},
			{Type: core.DocTurn},
			{},
		} {
			for _, k := range []int{1, 5, 20} {
				want := keywordReference(t, db, text, f, k)
				for name, plan := range plans {
					hits, err := db.keywordSearch(ctx, core.KeywordQuery{Filter: f, Text: text, K: k}, plan)
					if err != nil {
						t.Fatal(err)
					}
					var got []string
					for _, h := range hits {
						got = append(got, h.ID)
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s: %q %+v k=%d: got %v, want %v", name, text, f, k, got, want)
					}
				}
			}
		}
	}
}

// A word counted as common stays common while its count is remembered:
// the count is taken past the threshold the store will have when it has
// grown by 10%, not cut off at today's (where a few more documents would
// make it rare again, and searched).
func TestCommonWordStaysCommonAsTheStoreGrows(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	put := func(n int, text func(i int) string) {
		var docs []core.Document
		for i := range n {
			docs = append(docs, memoryDoc(text(i), core.ScopeGlobal, 3))
		}
		if err := db.Put(ctx, docs...); err != nil {
			t.Fatal(err)
		}
	}
	// 2,000 documents, "coffee" in 300 of them: over the limit of 100.
	put(2000, func(i int) string {
		if i%20 < 3 {
			return fmt.Sprintf("coffee note %d", i)
		}
		return fmt.Sprintf("tea note %d", i)
	})
	terms := func() []string {
		tx, err := db.read.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		kt, err := db.informativeTerms(ctx, tx, queryTerms("coffee lighthouse"))
		if err != nil {
			t.Fatal(err)
		}
		return append(kt.find, kt.score...)
	}
	want := []string{`"lighthouse"`}
	if got := terms(); !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	// 190 more (within 10%, so the count is remembered): the limit rises
	// to 109, and "coffee" is still in 300.
	put(190, func(i int) string { return fmt.Sprintf("water note %d", i) })
	if got := terms(); !slices.Equal(got, want) {
		t.Fatalf("after the store grew: kept %v, want %v", got, want)
	}
}

// keywordPlanFor: a filter that leaves nothing out overfetches; a small one
// is searched among its rowids; a large share of the store overfetches; a
// rare word among many memories is prefiltered.
func TestKeywordPlanFor(t *testing.T) {
	for _, tc := range []struct {
		within, total int
		matches       int64
		want          keywordPlan
	}{
		{100_000, 100_000, 5000, planOverfetch},
		{30, 100_000, 5000, planRestrict},      // the FAQ
		{150, 100_000, 100, planRestrict},      // a conversation, a rare word
		{150, 100_000, 60, planPrefilter},      // a conversation, a rarer word
		{5000, 100_000, 4000, planRestrict},    // memories of one scope, a broad word
		{10_000, 100_000, 4000, planPrefilter}, // memories, a broad word
		{10_000, 100_000, 300, planPrefilter},  // memories, a rare word
		{60_000, 100_000, 300, planOverfetch},  // memories fill the store
		{30_000, 100_000, 9000, planOverfetch},
	} {
		if got := keywordPlanFor(tc.within, tc.total, tc.matches, 100, 20); got != tc.want {
			t.Errorf("within %d of %d, %d matches: plan %d, want %d", tc.within, tc.total, tc.matches, got, tc.want)
		}
	}
}

// TestMemoryFoundByItsOwnWords: a memory is found by its own text, and by
// its two rarest words alone, when those words are each in a few hundred
// documents (too many to read both posting lists within maxPostings, too
// few to be common: a store of a million memories has thousands of such
// words). The documents holding only the rarest word are shorter, so BM25
// over that word alone ranks the memory last among them.
func TestMemoryFoundByItsOwnWords(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	const each = 300 // two such words: 600 postings, over maxPostings
	var docs []core.Document
	for i := range 25 * each { // "boru" and "balo" stay under 5% (commonShare)
		text := fmt.Sprintf("friday test note %d", i) // everyday words: common
		switch {
		case i < each:
			text = fmt.Sprintf("boru %d", i)
		case i < 2*each:
			text = fmt.Sprintf("balo %d", i)
		}
		docs = append(docs, memoryDoc(text, core.ScopeGlobal, 3))
	}
	target := memoryDoc("Boru friday in test her balo on of", core.ScopeGlobal, 3)
	docs = append(docs, target)
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{target.Text, "Boru balo", "balo boru"} {
		for i, f := range []core.Filter{{}, {Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}}} {
			if got := keywordIDs(t, db, text, f); len(got) == 0 || got[0] != target.ID {
				t.Errorf("%q, filter %d: the memory is not first in %v", text, i, got)
			}
		}
	}
	// Its BM25 is above the others', so that fusion's keyword relevance
	// (BM25 over the best) tells it from those holding one of its words.
	hits, err := db.KeywordSearch(ctx, core.KeywordQuery{Text: "Boru balo", K: 10})
	if err != nil || len(hits) < 2 || hits[0].BM25 <= hits[1].BM25 {
		t.Fatalf("BM25 does not tell the memory from the others: %v", err)
	}
}

// TestBroadFindTermReadsTheNewest: when the rarest word of a query is in
// more documents than a search scores (maxScoredRows), and no document
// holds a second of its words, the candidates are the best by BM25 among
// the newest of them, whatever the filter's plan: the search's cost stays
// bounded however many documents hold the word.
func TestBroadFindTermReadsTheNewest(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	var docs []core.Document
	for i := range 3000 { // the common-word limit is 150 documents
		text := fmt.Sprintf("note %d", i)
		if i%25 == 0 {
			// 120 documents, the shorter the older: BM25 prefers the old.
			text = "kestrel" + strings.Repeat(" feather", i/200)
		}
		d := memoryDoc(text, core.ScopeGlobal, 3)
		d.Meta.Timestamp = time.Now().Add(time.Duration(i) * time.Second)
		docs = append(docs, d)
	}
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	db.scoredRows = 30
	newest := map[string]bool{}
	for _, d := range docs[len(docs)-30*25:] {
		if strings.HasPrefix(d.Text, "kestrel") {
			newest[d.ID] = true
		}
	}
	for _, f := range []core.Filter{{}, {Type: core.DocMemory}} {
		got := keywordIDs(t, db, "kestrel", f)
		if len(got) != 10 {
			t.Fatalf("%d results, want 10", len(got))
		}
		for _, id := range got {
			if !newest[id] {
				t.Fatalf("%s is not among the 30 newest holding the word", id)
			}
		}
	}
	db.scoredRows = maxScoredRows
	if got := keywordIDs(t, db, "kestrel", core.Filter{}); newest[got[0]] {
		t.Fatalf("within the bound, the best is an older, shorter document; got %s", got[0])
	}
}
