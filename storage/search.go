package storage

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/vecindex"
)

// Search is two-stage: a Hamming-distance KNN over the vectors' binary
// codes picks candidates (cheap: 256 bytes per row, popcount), then the
// candidates are rescored with the exact cosine distance of their float32
// embeddings. Widening the candidate set trades time for recall; the
// benchmark (make bench) measures both against an exact scan.
func (db *DB) Search(ctx context.Context, q core.VectorQuery) ([]core.Hit, error) {
	if q.K <= 0 {
		return nil, nil
	}
	if len(q.Vector) != core.Dim {
		return nil, core.Errorf(core.KindInvalid, "query vector has %d dimensions, want %d", len(q.Vector), core.Dim)
	}
	if !cacheable(q.Filter) {
		// Filters the code index does not carry: an exact scan of what they
		// select (they are selective and indexed).
		return db.exactSearch(ctx, q)
	}
	if db.codes == nil || !db.codes.Ready() {
		// Opened WithoutSearchIndex, or the index is still loading:
		// SQLite alone answers.
		return db.exactSearch(ctx, q)
	}
	// Type, scope and conversation are in the code index: a long
	// conversation is scanned in memory, not read row by row.
	return db.approximateSearch(ctx, q)
}

// The candidate set. The codes of the filter's documents are scanned in
// memory (vecindex.Index: popcounts over 256 bytes a document, about 1 ms per
// 100k on one core), the rows nearest by their codes are ranked by an
// estimate of their inner product with the query (vecindex.NearestVector),
// and the nearest candidates by that estimate are rescored exactly from
// their embeddings, which costs a row read and a 768-dimension dot product
// each: the rescoring, not the scan, is most of a small store's search
// time. The estimate ranks the rows closer to the exact order than the
// codes' Hamming distance, so that 60 candidates keep recall@10 against an
// exact scan near 1 at 100k memories and 100 above 0.95 at a million
// (make bench: BenchmarkVectorRecall; docs/operators.md's performance
// notes). A search whose filter admits largeStore rows or more rescores
// largeCandidates.
const (
	rescoreFactor   = 2
	minCandidates   = 60
	largeStore      = 250_000
	largeCandidates = 100
)

// searchEffort is what a vector search reads at each stage (see
// vecindex.Effort), and the candidates it rescores for k results.
type searchEffort struct {
	// Effort.LargeRows, when set, replaces largeStore (tests, on small
	// stores).
	vecindex.Effort
	// candidates, when set, replaces candidateCount; hamming ranks by the
	// codes' Hamming distance alone (vecindex.Nearest), as searches did
	// before the estimate: for the benchmark's comparisons.
	candidates int
	hamming    bool
}

// defaultEffort is the effort of a search; vecindex.NearestVector scales
// its stages down with the rows a search reads (at 100k a shortlist of
// 4,000). At a million, 8,000 rows kept by the heads give recall@10 0.956
// (4.6–4.9 ms of CPU a search since the codes are prefetched), 16,000
// 0.966 for about a third more (measured before); probing less of
// the inverted file than its 40% cost more recall than that (30%: 0.939),
// so the shortlist is what is cut (BenchmarkRecall, ADA_BENCH_N=1000000).
var defaultEffort = vecindex.Effort{Shortlist: 8_000, Estimated: 1_000}

// candidateCount is the number of candidates for k results in a store of
// rows documents.
func candidateCount(k, rows int) int {
	if rows >= largeStore {
		return max(largeCandidates, k*rescoreFactor)
	}
	return max(minCandidates, k*rescoreFactor)
}

// exactSearch scores every document of q's filter and loads the q.K
// nearest. SQLite computes the distances and keeps the best q.K (see
// nearestSQL), so memory does not grow with what the filter selects, and
// it reads all of it: an old document is found as surely as a new one.
func (db *DB) exactSearch(ctx context.Context, q core.VectorQuery) ([]core.Hit, error) {
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return nil, storeErr(err)
	}
	defer tx.Rollback()
	where, args := filterSQL(q.Filter)
	var found []scoredDoc
	if err := readNearest(ctx, tx, q.Vector, where, args, q.K, &found); err != nil {
		return nil, err
	}
	return exactHits(q.Vector, found, q.K), nil
}

// approximateSearch scans the in-memory codes for candidates, then one
// query rescores them and loads the q.K nearest whole. It reads in one
// transaction on a read connection, so it sees one snapshot; a candidate
// deleted since the scan is simply not found, and one whose row changed
// type or scope is left out by the filter.
func (db *DB) approximateSearch(ctx context.Context, q core.VectorQuery) ([]core.Hit, error) {
	rowids := db.nearestCodes(q)
	if len(rowids) == 0 {
		return nil, nil
	}
	// The filter is not repeated in SQL: the code index applied it, and
	// the documents returned are checked against it (a rowid can have
	// changed hands since the scan). In SQL it cost more than the ranking
	// itself (make bench).
	applied := q.Filter.SearchConds()
	// The candidates in the document cache are rescored in Go, from their
	// cached embeddings: a read transaction and a query for 80 rowids cost
	// several times the dot products (make bench, stage shares). A small
	// store's candidates are nearly all cached.
	buf, _ := db.candidates.Get().(*[]scoredDoc)
	if buf == nil {
		buf = new([]scoredDoc)
	}
	defer func() {
		clear(*buf) // the documents are not kept alive by the pool
		db.candidates.Put(buf)
	}()
	found := slices.Grow((*buf)[:0], len(rowids))
	var missing []int64
	for _, r := range rowids {
		if d, ok := db.docs.get(r); ok && cachedFor(&d, applied) {
			found = append(found, scoredDoc{scored: scored{rowid: r}, doc: d})
		} else {
			missing = append(missing, r)
		}
	}
	*buf = found
	if len(missing) == 0 {
		return exactHits(q.Vector, found, q.K), nil
	}
	tx, epoch, err := db.readSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var cands []scored
	for start := 0; start < len(missing); start += sqlChunk {
		chunk := missing[start:min(start+sqlChunk, len(missing))]
		args := make([]any, 0, 1+len(chunk))
		args = append(args, encodeFloats(q.Vector))
		for _, r := range chunk {
			args = append(args, r)
		}
		// NOT INDEXED: with no statistics, SQLite can reckon an index
		// cheaper than some 80 rowid lookups, and then reads every
		// document of a type (EXPLAIN QUERY PLAN). The rowid lookups stay
		// allowed. No ORDER BY: loadNearest keeps the k nearest of the few
		// candidates, and the query is faster without SQLite's sorter.
		err := queryRows(ctx, tx, rankSQL+" NOT INDEXED WHERE rowid IN ("+placeholders(len(chunk))+")", args, func(rows *sql.Rows) error {
			var c scored
			err := rows.Scan(&c.rowid, &c.distance)
			cands = append(cands, c)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	loaded, err := db.loadDocs(ctx, tx, epoch, cands, q.K, q.Filter)
	if err != nil {
		return nil, err
	}
	found = append(found, loaded...)
	*buf = found
	return exactHits(q.Vector, found, q.K), nil
}

// rankSQL before a WHERE clause selects the rowids of its rows and their
// distances to a query vector; with rankOrderSQL after it, those of the k
// nearest. The arguments are the vector, the clause's and k. SQLite computes the distances
// (sqlite-vec's vec_distance_cosine, float32) and keeps the k best, so
// the candidates' 3 KiB embeddings never cross into Go: copying them out
// (cgo, then database/sql), and the garbage they leave, would be most of
// a search's time (pprof, make bench). A zero vector has no
// direction: its distance is 1, as in vecindex.CosineDistance (sqlite-vec gives
// NaN, which SQLite makes NULL).
const (
	rankSQL      = "SELECT rowid, ifnull(vec_distance_cosine(embedding, ?), 1) AS distance FROM documents"
	rankOrderSQL = " ORDER BY distance, rowid LIMIT ?"
)

// nearestSQL selects the k documents of a WHERE clause nearest to a query
// vector, whole, with their distances (see rankSQL): the inner query keeps
// rowids only, and the k rows are read whole by the join.
const nearestSQL = `SELECT d.rowid, d.id, d.text, d.metadata, d.embedding, n.distance FROM (
		` + rankSQL + `%s` + rankOrderSQL + `) AS n
	JOIN documents AS d ON d.rowid = n.rowid`

// scoredDoc is a loaded document and its distance to the query.
type scoredDoc struct {
	scored
	doc core.Document
}

// readNearest appends the k documents of where nearest to q to found.
func readNearest(ctx context.Context, tx *sql.Tx, q []float32, where string, args []any, k int, found *[]scoredDoc) error {
	args = append(append([]any{encodeFloats(q)}, args...), k)
	// A context that cannot be cancelled: with one that can, the driver
	// (mattn/go-sqlite3) starts a goroutine for every row it steps. The
	// query reads at most k rows; a cancelled request stops before the next.
	rows, err := tx.QueryContext(context.WithoutCancel(ctx), fmt.Sprintf(nearestSQL, where), args...)
	if err != nil {
		return storeErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var c scoredDoc
		var err error
		if c.doc, c.rowid, err = scanDocument(rows, &c.distance); err != nil {
			return storeErr(err)
		}
		*found = append(*found, c)
	}
	if err := rows.Err(); err != nil {
		return storeErr(err)
	}
	return storeErr(ctx.Err())
}

// exactHits computes the distances of found exactly (float64, from the
// embeddings, as vecindex.CosineDistance does), so that a hit's distance does not
// depend on the path that found it, and returns the k nearest (see
// nearestHits).
func exactHits(q []float32, found []scoredDoc, k int) []core.Hit {
	embs := make([][]float32, len(found))
	for i := range found {
		embs[i] = found[i].doc.Embedding
	}
	dists := make([]float64, len(found))
	vecindex.CosineDistances(q, embs, dists)
	for i := range found {
		found[i].distance = dists[i]
	}
	return nearestHits(found, k)
}

// nearestHits returns the k nearest of found, ties by rowid so that equal
// distances always resolve the same way.
func nearestHits(found []scoredDoc, k int) []core.Hit {
	// Indexes are sorted, not the documents: moving a Document costs a
	// write barrier per pointer field, most of a small store's vector
	// search once the candidates are cached (pprof).
	order := make([]int32, len(found))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return byDistance(found[a].scored, found[b].scored) })
	hits := make([]core.Hit, 0, min(k, len(found)))
	for _, i := range order[:min(k, len(found))] {
		hits = append(hits, core.Hit{Document: found[i].doc, Distance: found[i].distance})
	}
	return hits
}

// byDistance orders candidates nearest first, ties by rowid.
func byDistance(a, b scored) int {
	return cmp.Or(cmp.Compare(a.distance, b.distance), cmp.Compare(a.rowid, b.rowid))
}

// scored is a candidate document and its distance to the query.
type scored struct {
	rowid    int64
	distance float64
}

func scoredRowid(c *scored) int64 { return c.rowid }

// loadNearest loads the k nearest of cands that satisfy f, nearest first,
// from the document cache when f is a filter it can check (cacheable) and
// from tx otherwise. With q set, the candidates' distances came from SQLite in
// float32, and those of the k are computed again exactly (exactHits).
func (db *DB) loadNearest(ctx context.Context, tx *sql.Tx, epoch uint64, cands []scored, k int, f core.Filter, q []float32) ([]core.Hit, error) {
	found, err := db.loadDocs(ctx, tx, epoch, cands, k, f)
	if err != nil {
		return nil, err
	}
	if q != nil {
		return exactHits(q, found, k), nil
	}
	return nearestHits(found, k), nil
}

// loadDocs loads the k nearest of cands that satisfy f, in no order, with
// the distances of cands (see loadNearest).
func (db *DB) loadDocs(ctx context.Context, tx *sql.Tx, epoch uint64, cands []scored, k int, f core.Filter) ([]scoredDoc, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	slices.SortFunc(cands, byDistance)
	cands = cands[:min(len(cands), k)]
	useCache := cacheable(f)
	found := make([]scoredDoc, 0, len(cands))
	var missing []any
	for _, c := range cands {
		if d, ok := db.docs.get(c.rowid); ok && useCache {
			found = append(found, scoredDoc{scored: c, doc: d})
		} else {
			missing = append(missing, c.rowid)
		}
	}
	if len(missing) > 0 {
		dist := make(map[int64]float64, len(cands))
		for _, c := range cands {
			dist[c.rowid] = c.distance
		}
		err := queryRowids(ctx, tx, "SELECT "+selectDocumentColumns+" FROM documents", missing, func(rows *sql.Rows) error {
			d, rowid, err := scanDocument(rows)
			if err == nil {
				found = append(found, scoredDoc{scored: scored{rowid: rowid, distance: dist[rowid]}, doc: d})
				if useCache {
					db.docs.add(epoch, rowid, d)
				}
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if useCache {
		// A cached document can be newer than tx's snapshot, and the
		// approximate search's rowids were filtered by the code index
		// only: keep what satisfies f.
		applied := f.SearchConds()
		found = slices.DeleteFunc(found, func(c scoredDoc) bool { return !cachedFor(&c.doc, applied) })
	}
	return found, nil
}

// cacheable reports whether f filters only on what the code index and
// cachedFor check (core.Filter.SearchConds).
//
// A member's view (Visible) is applied by SQL too: the memory page filters
// the candidates again, but candidates drawn from every memory would rank
// the member's hits below hidden ones, and the ranks it shows would tell of
// them. The page's other narrowing (source, importance, dates) is left to
// that second filter, which an operator may see through.
func cacheable(f core.Filter) bool {
	if f.Visible != nil {
		return false
	}
	var x vecindex.Filter
	for _, c := range f.Conds() {
		if !c.Narrowing && !indexCond(c, &x) {
			return false
		}
	}
	return true
}

// ScanCodes runs only the first stage of an approximate Search, the scan of
// the in-memory codes, and returns how many candidates it found. It exists
// for the benchmark (make bench), which times it to show the stage's share
// of a search.
func (db *DB) ScanCodes(q core.VectorQuery) int {
	if db.codes == nil {
		return 0
	}
	return len(db.nearestCodes(q))
}

// nearestCodes is the first stage of an approximate search: the rowids of
// the candidates, nearest first, by the in-memory codes. Their number is
// candidateCount's for the rows q's filter admits, which the index counts
// under the one read lock of its search.
func (db *DB) nearestCodes(q core.VectorQuery) []int64 {
	eff := db.effort
	n := eff.candidates
	if n == 0 {
		n = candidateCount(q.K, 0)
		eff.LargeRows, eff.LargeCandidates = cmp.Or(eff.LargeRows, largeStore), candidateCount(q.K, largeStore)
	}
	if eff.hamming {
		qc := vecindex.CodeOf(vecindex.Quantize(q.Vector))
		return db.codes.Nearest(&qc, indexFilter(q.Filter), n)
	}
	if eff.Shortlist == 0 && eff.Estimated == 0 && eff.Probe == 0 {
		eff.Shortlist, eff.Estimated = defaultEffort.Shortlist, defaultEffort.Estimated
	}
	return db.codes.NearestVector(q.Vector, indexFilter(q.Filter), n, eff.Effort)
}
