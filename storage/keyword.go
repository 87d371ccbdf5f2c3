package storage

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/ada-chat/ada/core"
)

// maxQueryTerms bounds the terms of one keyword query.
const maxQueryTerms = 16

// A query term found in more than commonShare of the documents (and at
// least minCommon of them) is left out of the keyword search: its BM25
// weight is small, and its long posting list would cost most of the search
// (every match is scored and sorted). Vectors still see it. minCommon was
// 500, which kept every word of a store under 10,000 documents: at 1,000,
// a query of everyday words then scored most of the store, 3 of a hybrid
// search's 5 ms (make bench, stage shares).
const (
	commonShare = 0.05
	minCommon   = 50
)

// KeywordSearch returns up to q.K documents within q's filter that match
// q.Text's words, best BM25 first. The words are ORed: a document matching
// any of them is a candidate, and BM25 weighs rare words above common ones.
func (db *DB) KeywordSearch(ctx context.Context, q core.KeywordQuery) ([]core.KeywordHit, error) {
	terms := queryTerms(q.Text)
	if len(terms) == 0 || q.K <= 0 {
		return nil, nil
	}
	// A read connection: keyword searches read only the posting lists of
	// informative (rare) words and a few rows, and never wait for a write.
	tx, epoch, err := db.readSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	terms, err = db.informativeTerms(ctx, tx, terms)
	if err != nil || len(terms) == 0 {
		return nil, err
	}
	match := strings.Join(terms, " OR ")
	var cands []scored
	done := false
	if cacheable(q.Filter) {
		// The filter is on type, scope and conversation only: the code
		// index checks it in memory, and the query reads the FTS index
		// alone. Joining every match to its document (a 3 KiB row) to
		// filter in SQL cost 1.2 of a keyword search's 1.5 ms at 20,000
		// memories. The best matches are read, more than k of them, and
		// filtered; if too few pass, the query joins after all.
		limit := max(keywordOverfetch*q.K, minKeywordRows)
		if cands, err = bm25Rows(ctx, tx, `SELECT rowid, bm25(documents_fts) FROM documents_fts
			WHERE documents_fts MATCH ? ORDER BY bm25(documents_fts) LIMIT ?`, []any{match, limit}); err != nil {
			return nil, err
		}
		exhausted := len(cands) < limit
		cands = db.codes.filter(cands, codeFilter{Type: q.Type, Scopes: q.Scopes, ConversationID: q.ConversationID})
		done = exhausted || len(cands) >= q.K
	}
	if !done {
		where, args := filterSQL(q.Filter)
		where = strings.Replace(where, " WHERE ", " AND ", 1)
		if cands, err = bm25Rows(ctx, tx, `SELECT documents.rowid, bm25(documents_fts) FROM documents_fts
			JOIN documents ON documents.rowid = documents_fts.rowid
			WHERE documents_fts MATCH ?`+where+` ORDER BY bm25(documents_fts) LIMIT ?`,
			append(append([]any{match}, args...), q.K)); err != nil {
			return nil, err
		}
	}
	hits, err := db.loadNearest(ctx, tx, epoch, cands, q.K, q.Filter, nil)
	if err != nil {
		return nil, err
	}
	out := make([]core.KeywordHit, len(hits))
	for i, h := range hits {
		out[i] = core.KeywordHit{Document: h.Document, BM25: -h.Distance}
	}
	return out, nil
}

// keywordOverfetch and minKeywordRows size the read of a keyword search
// filtered in memory: max(keywordOverfetch·k, minKeywordRows) best matches.
// SQLite scores and sorts every match whatever the limit; the rows read
// cost about a µs each.
const (
	keywordOverfetch = 4
	minKeywordRows   = 100
)

// bm25Rows runs a keyword query of rowids and BM25 scores (see
// KeywordSearch). Not cancellable (see readNearest): the rows are few.
func bm25Rows(ctx context.Context, tx *sql.Tx, query string, args []any) ([]scored, error) {
	var cands []scored
	err := queryRows(ctx, tx, query, args, func(rows *sql.Rows) error {
		var c scored
		err := rows.Scan(&c.rowid, &c.distance)
		cands = append(cands, c) // bm25() is negative: lower is better, like a distance
		return err
	})
	return cands, err
}

// queryTerms turns free text into FTS5 terms: its words, lower-cased,
// without stop words, each quoted so that no word is read as FTS5 syntax.
func queryTerms(text string) []string {
	seen := map[string]bool{}
	var terms []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if stopWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		terms = append(terms, `"`+w+`"`)
		if len(terms) == maxQueryTerms {
			break
		}
	}
	return terms
}

// maxPostings bounds the posting-list entries one keyword query reads:
// every match is joined to its document and scored with BM25, about 3 to
// 5 µs each. A query of everyday words at 100,000 documents otherwise
// matched tens of thousands of them (43 ms; 5 ms with 1,000; make bench,
// stage shares). The rarest terms are kept first: they carry the most
// BM25 weight.
const maxPostings = 500

// informativeTerms drops the terms that are too common to be worth their
// posting lists (see commonShare), then keeps the rarest while their
// posting lists add up to at most maxPostings (the rarest always). Counting
// stops at the threshold, so a common term costs at most that many index
// entries to recognise, and the counts are remembered (termCounts).
func (db *DB) informativeTerms(ctx context.Context, tx *sql.Tx, terms []string) ([]string, error) {
	var stored int64
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(rowid), 0) FROM documents").Scan(&stored); err != nil {
		return nil, storeErr(err)
	}
	limit := max(minCommon, int64(float64(stored)*commonShare))
	if stored <= limit {
		return terms, nil // a small store: nothing is costly
	}
	var stmt *sql.Stmt
	counts := make([]int64, len(terms))
	for i, t := range terms {
		if n, ok := db.terms.get(t, stored); ok {
			counts[i] = n
			continue
		}
		if stmt == nil {
			var err error
			if stmt, err = tx.PrepareContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM documents_fts WHERE documents_fts MATCH ? LIMIT ?)"); err != nil {
				return nil, storeErr(err)
			}
			defer stmt.Close()
		}
		if err := stmt.QueryRowContext(ctx, t, limit).Scan(&counts[i]); err != nil {
			return nil, storeErr(err)
		}
		db.terms.put(t, stored, counts[i])
	}
	return rarestTerms(terms, counts, limit), nil
}

// rarestTerms keeps the terms whose count is under limit, rarest first,
// while their counts add up to at most maxPostings (the rarest always).
func rarestTerms(terms []string, counts []int64, limit int64) []string {
	order := make([]int, 0, len(terms))
	for i := range terms {
		if counts[i] < limit {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(counts[a], counts[b]) })
	var kept []string
	var sum int64
	for _, i := range order {
		if sum += counts[i]; len(kept) > 0 && sum > maxPostings {
			break
		}
		kept = append(kept, terms[i])
	}
	return kept
}

// termCounts remembers how many documents each query term is in (capped
// at the threshold it was counted to), so that a word is counted once and
// not on every query. A count is used while the store's size is within
// 10% of the size it was counted at: it only chooses which words are worth
// searching, and a word's share of the store changes slowly.
type termCounts struct {
	mu     sync.Mutex
	counts map[string][2]int64 // term → {count, store size}
}

// maxTermCounts bounds the words remembered; past it, they start afresh.
const maxTermCounts = 100_000

func (c *termCounts) get(term string, stored int64) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.counts[term]
	if !ok || float64(stored) > 1.1*float64(e[1]) || float64(stored) < 0.9*float64(e[1]) {
		return 0, false
	}
	return e[0], true
}

func (c *termCounts) put(term string, stored, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.counts == nil || len(c.counts) >= maxTermCounts {
		c.counts = make(map[string][2]int64)
	}
	c.counts[term] = [2]int64{n, stored}
}

// stopWords are English function words: they match nearly every document,
// so they cost time and add nothing to BM25.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again all am an and any are as at be because been before
		being below between both but by can could did do does doing down during each few for from further had has have
		having he her here hers herself him himself his how i if in into is it its itself just me more most my myself
		no nor not now of off on once only or other our ours ourselves out over own same she should so some such than
		that the their theirs them themselves then there these they this those through to too under until up very was
		we were what when where which while who whom why will with would you your yours yourself yourselves s t d ll m
		re ve don doesn didn isn wasn aren weren won wouldn shouldn couldn`) {
		m[w] = true
	}
	return m
}()
