package storage

import (
	"cmp"
	"context"
	"database/sql"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/vecindex"
)

// maxQueryTerms bounds the terms of one keyword query.
const maxQueryTerms = 16

// A query term found in more than commonShare of the documents (and at
// least minCommon of them) is left out of the keyword search: its BM25
// weight is small, and its long posting list would cost most of the search
// (every match is scored and sorted). Vectors still see it. minCommon is
// low so that a small store leaves its everyday words out too: a query of
// them would otherwise score most of the store (make bench, stage shares).
const (
	commonShare = 0.05
	minCommon   = 50
)

// KeywordSearch returns up to q.K documents within q's filter that match
// q.Text's words, best BM25 first. The words are ORed: a document holding
// one of the rarest is a candidate, one holding more of them ranks first,
// and BM25 weighs rare words above common ones (rankKeyword).
func (db *DB) KeywordSearch(ctx context.Context, q core.KeywordQuery) ([]core.KeywordHit, error) {
	return db.keywordSearch(ctx, q, keywordPlanFor)
}

// keywordSearch is KeywordSearch with the choice of plan (see
// keywordPlanFor) given, so that tests can try every plan.
func (db *DB) keywordSearch(ctx context.Context, q core.KeywordQuery, choose func(within, total int, matches int64, limit, k int) keywordPlan) ([]core.KeywordHit, error) {
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
	kt, err := db.informativeTerms(ctx, tx, terms)
	if err != nil || len(kt.find) == 0 {
		return nil, err
	}
	plan, limit := planJoin, max(keywordOverfetch*q.K, minKeywordRows)
	f := indexFilter(q.Filter)
	var rowids []int64
	switch {
	case !cacheable(q.Filter) || db.codes == nil || !db.codes.Ready():
		// A filter the code index does not hold, or no index
		// (WithoutSearchIndex) or not yet (it loads in the background,
		// and would make the search wait, for ever if the load keeps
		// failing): SQL applies it.
	case f.Type == "" && len(f.Scopes) == 0 && f.Conversation == "":
		plan = planOverfetch
	default:
		// The filter is on type, scope and conversation only: the code
		// index knows which documents it selects.
		var within, total int
		rowids, within, total = db.codes.Within(f, int(min(maxRestrictRows, restrictFactor*kt.matches)))
		if within == 0 {
			return nil, nil
		}
		if plan = choose(within, total, kt.matches, limit, q.K); plan == planRestrict && rowids == nil {
			plan = planOverfetch // more rowids than were listed (a test's choice)
		}
	}
	// Every plan reads the best matches of the FTS index (from), as the
	// rowid column col, with the conditions cond and their arguments.
	var (
		from, col = "documents_fts", "rowid"
		cond      string
		condArgs  []any
		keep      func([]scored) []scored
	)
	switch plan {
	case planRestrict, planPrefilter:
		// The filter selects few documents, or few of the matches: the
		// query is restricted to them, and only their matches are scored.
		if plan == planPrefilter {
			if rowids, err = db.matchesWithin(ctx, tx, kt.find, f); err != nil || len(rowids) == 0 {
				return nil, err
			}
		}
		cond, condArgs = restrictedBM25Cond, []any{rowidSet(rowids)}
	case planOverfetch:
		// The filter selects most documents: the best matches are read
		// from the FTS index alone, more than k of them, and filtered in
		// memory (rankKeyword reads more while too few pass).
		keep = func(cands []scored) []scored { return vecindex.Keep(db.codes, cands, f, scoredRowid) }
	default:
		from, col = "documents_fts JOIN documents ON documents.rowid = documents_fts.rowid", "documents_fts.rowid"
		cond, condArgs = filterSQL(q.Filter)
		cond = strings.Replace(cond, " WHERE ", " AND ", 1)
	}
	query := func(match string, limit int, newest bool) ([]scored, error) {
		return bm25Rows(ctx, tx, "SELECT "+col+", bm25(documents_fts) FROM "+from+" WHERE documents_fts MATCH ?"+cond+
			keywordOrder(newest, col)+" LIMIT ?", append(append([]any{match}, condArgs...), limit))
	}
	cands, err := rankKeyword(kt, q.K, limit, db.scoredRows, query, keep)
	if err != nil {
		return nil, err
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

// mergeKeywordSQL merges keyword segments, 16 pages (64 KB) of them at
// most: each write that adds or deletes documents runs it before its
// commit. FTS5 writes a transaction's terms as a segment of their own and
// merges segments only once 64 pages have been written since its last
// merge, so a store written a few documents at a time kept a dozen
// segments or more, and a query seeks each of its words in every one.
// The step merges the segments of a level as soon as it holds four
// (FTS5's usermerge, left at its default), as FTS5's own merge would after
// its 64 pages; a larger merge is spread over the writes that follow, and
// a step with nothing to merge reads one record. BenchmarkKeywordSegments
// (1,000 memories written 100 at a time): 4 segments, not 10, and a
// keyword search 416 → 291 µs p50; at 100,000, 10, not 17, 1,595 → 1,381
// µs. Merging at two segments a level (usermerge 2) keeps fewer still
// (2 and 8; BenchmarkKeywordSegments compares both) but leaves a bulk
// import a debt of merges that later writes pay, up to a few ms each.
const mergeKeywordSQL = "INSERT INTO documents_fts (documents_fts, rank) VALUES ('merge', 16)"

// keywordOverfetch and minKeywordRows size the read of a keyword search
// filtered in memory: max(keywordOverfetch·k, minKeywordRows) best matches.
// SQLite scores and sorts every match whatever the limit; the rows read
// cost about a µs each.
const (
	keywordOverfetch = 4
	minKeywordRows   = 100
)

// keywordPlan is how a keyword search filtered by type, scope and
// conversation finds its best matches within the filter (see
// keywordPlanFor). Each gives what the join gives: rankKeyword's
// candidates within the filter.
type keywordPlan int

const (
	// planOverfetch reads the best matches from the FTS index alone and
	// filters them in memory, and reads them all if too few pass.
	planOverfetch keywordPlan = iota
	// planRestrict restricts the query to the filter's rowids
	// (restrictedBM25Cond).
	planRestrict
	// planJoin joins every match to its document row and filters in SQL.
	planJoin
	// planPrefilter lists the documents holding a find term (their rowids
	// alone, not scored), keeps those within the filter by the code index,
	// and restricts the query to them: only those few are scored.
	planPrefilter
)

// maxRestrictRows bounds the rowids a keyword query is restricted to.
const maxRestrictRows = 20_000

// keywordPlanFor chooses the plan of a keyword search whose filter selects
// within of the total documents held, when its terms match at most matches
// documents and the overfetch would read limit of them for k results.
// BenchmarkKeywordFiltered: BM25 and the join each cost about a microsecond
// a match (the join ten times that when the rows come from the OS rather
// than the page cache), whatever the filter; the restricted query a fixed
// part and about a microsecond a rowid of the filter, whatever the matches.
// So the FAQ or a conversation's turns are searched among their rowids; a
// filter that selects most of the store overfetches; and a rare word among
// many memories is prefiltered: listing a match costs a tenth of scoring
// or joining it (BenchmarkKeywordScale, an entity's 1% of a million).
func keywordPlanFor(within, total int, matches int64, limit, k int) keywordPlan {
	switch {
	case within >= total:
		return planOverfetch // the filter leaves nothing out
	case within <= maxRestrictRows && int64(within) < restrictFactor*matches:
		return planRestrict
	case within*limit >= k*total:
		return planOverfetch // k of the limit best matches are expected within the filter
	default:
		return planPrefilter
	}
}

// restrictFactor: the restricted query pays when the filter's rowids are
// fewer than this many times the matches (a rowid costs about as much as
// joining a match, and half of what scoring one does).
const restrictFactor = 2

// restrictedBM25Cond keeps the matches among a set of rowids, given as a
// JSON array. The unary + keeps SQLite from giving FTS5 the rowids as
// a constraint: FTS5 would then run the query once per rowid, computing
// BM25's document frequencies each time. As a filter on the matches, the
// set is one lookup in a temporary index per match, and only the matches
// within it are scored.
const restrictedBM25Cond = ` AND +rowid IN (SELECT value FROM json_each(?))`

// keywordOrder orders a keyword query's matches: best BM25 first, ties by
// rowid, or newest first (rankKeyword).
func keywordOrder(newest bool, rowid string) string {
	if newest {
		return " ORDER BY " + rowid + " DESC"
	}
	return " ORDER BY bm25(documents_fts), " + rowid
}

// matchesWithin lists the documents holding one of terms that f selects
// (planPrefilter): FTS5 reads their rowids without scoring them, and the
// code index filters them.
func (db *DB) matchesWithin(ctx context.Context, tx *sql.Tx, terms []string, f vecindex.Filter) ([]int64, error) {
	var rowids []int64
	err := queryRows(ctx, tx, "SELECT rowid FROM documents_fts WHERE documents_fts MATCH ?", []any{strings.Join(terms, " OR ")}, func(rows *sql.Rows) error {
		var r int64
		err := rows.Scan(&r)
		rowids = append(rowids, r)
		return err
	})
	if err != nil {
		return nil, err
	}
	return vecindex.Keep(db.codes, rowids, f, func(r *int64) int64 { return *r }), nil
}

// rowidSet is rowids as a JSON array, for restrictedBM25Cond.
func rowidSet(rowids []int64) string {
	set := make([]byte, 0, 8*len(rowids)+2)
	set = append(set, '[')
	for i, r := range rowids {
		if i > 0 {
			set = append(set, ',')
		}
		set = strconv.AppendInt(set, r, 10)
	}
	return string(append(set, ']'))
}

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
// every match is joined to its document and scored with BM25, a few µs
// each, and a query of everyday words in a large store matches tens of
// thousands (make bench, stage shares). The rarest terms are kept first:
// they carry the most BM25 weight.
const maxPostings = 500

// keywordTerms are a keyword query's informative terms (informativeTerms):
// the documents holding one of find are the candidates, and every term,
// find's and score's, counts in their BM25. So a document holding all the
// query's words outranks one holding only its rarest, however many hold
// that one, and only the short posting lists of find are read in full.
type keywordTerms struct {
	find, score []string
	// matches is how many documents find's terms match at most: the sum
	// of their counts, or the store's size when it is too small to count.
	matches int64
}

// informativeTerms drops the terms that are too common to be worth their
// posting lists (see commonShare), and of the others, finds with the rarest
// and scores with the next (rarestTerms). Counting stops past the threshold, so
// a common term costs at most that many index entries to recognise, and the
// counts are remembered (termCounts).
func (db *DB) informativeTerms(ctx context.Context, tx *sql.Tx, terms []string) (keywordTerms, error) {
	var stored int64
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(rowid), 0) FROM documents").Scan(&stored); err != nil {
		return keywordTerms{}, storeErr(err)
	}
	limit := commonLimit(stored)
	if stored <= limit {
		return keywordTerms{find: terms, matches: stored}, nil // a small store: nothing is costly
	}
	// A count is remembered while the store stays within 10% of its size
	// (termCounts), where the threshold can be up to 10% higher: counting
	// stops past that one, so that a count cut off there still says
	// "common". Cut off at today's threshold, it would fall under the
	// threshold as soon as the store grew, and a common word would be
	// searched after all.
	countTo := commonLimit(stored+stored/10+1) + 1
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
				return keywordTerms{}, storeErr(err)
			}
			defer stmt.Close()
		}
		if err := stmt.QueryRowContext(ctx, t, countTo).Scan(&counts[i]); err != nil {
			return keywordTerms{}, storeErr(err)
		}
		db.terms.put(t, stored, counts[i])
	}
	return rarestTerms(terms, counts, limit, db.findPostings), nil
}

// CommonLimit is commonLimit, for another backend that leaves out the
// terms SQLite leaves out (storage/chroma), so that their searches agree.
func CommonLimit(stored int64) int64 { return commonLimit(stored) }

// commonLimit is the number of documents from which a term is common in a
// store of stored documents (see commonShare).
func commonLimit(stored int64) int64 {
	return max(minCommon, int64(float64(stored)*commonShare))
}

// rarestTerms drops the terms whose count is limit or more; of the others,
// rarest first, it finds with those whose counts add up to at most budget
// (maxPostings; the rarest always) and scores with the next while theirs
// add up to at most maxScorePostings.
func rarestTerms(terms []string, counts []int64, limit, budget int64) keywordTerms {
	order := make([]int, 0, len(terms))
	for i := range terms {
		if counts[i] < limit {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(counts[a], counts[b]) })
	var kt keywordTerms
	var scored int64
	for _, i := range order {
		switch {
		case len(kt.find) == 0 || len(kt.score) == 0 && kt.matches+counts[i] <= budget:
			kt.matches += counts[i]
			kt.find = append(kt.find, terms[i])
		case scored+counts[i] <= maxScorePostings:
			scored += counts[i]
			kt.score = append(kt.score, terms[i])
		}
	}
	return kt
}

// maxScorePostings bounds the posting-list entries of the terms that only
// score: FTS5 counts the documents of every term of a query to weigh it
// (BM25's IDF), about 30 ns an entry. The rarest are kept first; a word
// past it is as common as a common one to this query.
const maxScorePostings = 20_000

// rankKeyword returns the candidates of a keyword search: the k best of
// the documents holding one of kt.find, by BM25 over all of kt's terms,
// those holding a term of kt.score as well first (they match two of the
// query's informative words or more), ties by rowid. query reads the
// best limit matches of a MATCH expression, in order (or the newest
// first), within the search's filter or, when keep is set, before keep
// applies it.
//
// One expression cannot both find with some terms and score with others:
// FTS5 scores a document only on the phrases of the expression that it
// matches, and an OR reads every term's posting list. "(find) AND (score)"
// is evaluated by seeking in score's long lists for each document of
// find's short ones, and scores with every term; "find" then adds the
// documents holding only find terms, when fewer than k hold more. So the
// memory holding all of a query's words is a candidate however many
// documents hold its rarest one.
//
// FTS5 scores every match of a query ordered by BM25, whatever the limit:
// when find's terms are in more than maxScored documents (maxScoredRows),
// those holding only them are read newest first, maxScored of them, and
// ranked among themselves.
func rankKeyword(kt keywordTerms, k, limit, maxScored int, query func(match string, limit int, newest bool) ([]scored, error), keep func([]scored) []scored) ([]scored, error) {
	find := strings.Join(kt.find, " OR ")
	type read struct {
		match  string
		newest bool
	}
	reads := []read{{find, kt.matches > int64(maxScored)}}
	if len(kt.score) > 0 {
		reads = []read{{"(" + find + ") AND (" + strings.Join(kt.score, " OR ") + ")", false}, reads[0]}
	}
	seen := map[int64]bool{}
	var out []scored
	for _, r := range reads {
		n := limit
		if r.newest {
			n = maxScored
		}
		for {
			rows, err := query(r.match, n, r.newest)
			if err != nil {
				return nil, err
			}
			more := len(rows) == n
			if keep != nil {
				rows = keep(rows)
			}
			fresh := slices.DeleteFunc(rows, func(c scored) bool { return seen[c.rowid] })
			if len(out)+len(fresh) >= k || !more {
				// The rows read are the best of the match's within the
				// filter (or the best of its newest).
				slices.SortFunc(fresh, byDistance)
				for _, c := range fresh[:min(len(fresh), k-len(out))] {
					seen[c.rowid] = true
					out = append(out, c)
				}
				break
			}
			// Too few within the filter: every match is scored whatever
			// the limit, so the second read has none.
			n, r.newest = math.MaxInt32, false
		}
		if len(out) >= k {
			break
		}
	}
	return out, nil
}

// maxScoredRows bounds the documents a keyword search scores that hold
// only its find terms (rankKeyword): about 0.4 µs each at a million.
const maxScoredRows = 1_000

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
