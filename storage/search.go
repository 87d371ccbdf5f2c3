package storage

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ada-chat/ada/core"
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
	if q.ConversationID != "" || q.Tag != "" || !q.Expired.IsZero() || q.RoomID != "" || q.AnyRoom || !q.OlderThan.IsZero() ||
		q.AfterTurn != nil || q.UpToTurn != nil {
		// These filters are selective (a conversation, a room, a tag) and
		// indexed: an exact scan of what they select beats the KNN.
		return db.exactSearch(ctx, q)
	}
	return db.approximateSearch(ctx, q)
}

// The candidate set. The KNN scans the partition and selects its top k in
// about (rows scanned) × k / vecShards steps; rescoring then reads each
// candidate's embedding. So a search gets as many candidates as a fixed
// amount of selection work allows, within [max(rescoreFactor·k,
// minCandidates), maxCandidates]: 60 in a partition of 100k documents, where
// 2048-bit codes give recall@10 of 0.97 (hash embedder) and 1.00 (clustered
// vectors) against an exact scan, and more in smaller partitions, whose
// nearest neighbours are less distinct (make bench measures both).
const (
	rescoreFactor = 2
	minCandidates = 60
	maxCandidates = 250
	knnBudget     = 6_000_000 // rows scanned × candidates
	// maxKNN is sqlite-vec v0.1.6's limit on k.
	maxKNN = 4096
	// maxExactScan bounds the exact path used for tag, room and age filters.
	maxExactScan = 20000
)

// candidateCount is the number of candidates for k results in a partition
// of about rows documents.
func candidateCount(k int, rows int64) int {
	lo := max(k*rescoreFactor, minCandidates)
	hi := max(lo, maxCandidates)
	return min(max(int(knnBudget/max(rows, 1)), lo), hi, maxKNN)
}

// vecShards is the number of shards of each documents_vec partition.
// sqlite-vec v0.1.6 selects a chunk's top k by k passes over it, so one KNN
// of k over n rows costs n·k; vecShards KNNs of k/vecShards over
// n/vecShards rows each cost a vecShards-th of that. The union of the
// shards' top k/vecShards is as good a candidate set as the top k overall,
// because the best candidates fall into the shards evenly: a code's shard is
// drawn at random when it is written (a function of the rowid would follow
// periodic write patterns, such as a memory after every exchange). The KNN
// for 60 candidates among 100k rows takes 10.7 ms in one piece, 9.1 ms in
// four.
const vecShards = 4

// insertVectorSQL writes a document's code. Its arguments are the rowid,
// type, scope, conversation id and code.
var insertVectorSQL = fmt.Sprintf(`INSERT INTO documents_vec (rowid, shard, doc_type, scope, conversation_id, embedding)
	VALUES (?, abs(random() %% %d), ?, ?, ?, vec_bit(?))`, vecShards)

// exactSearch scores every document of q's filter (the newest
// maxExactScan) from its embedding alone and loads the q.K nearest.
func (db *DB) exactSearch(ctx context.Context, q core.VectorQuery) ([]core.Hit, error) {
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return nil, storeErr(err)
	}
	defer tx.Rollback()
	where, args := filterSQL(q.Filter)
	rows, err := tx.QueryContext(ctx, "SELECT rowid, embedding FROM documents"+where+" ORDER BY ts DESC LIMIT ?",
		append(args, maxExactScan)...)
	if err != nil {
		return nil, storeErr(err)
	}
	var cands []scored
	for rows.Next() {
		var c scored
		var emb []byte
		if err := rows.Scan(&c.rowid, &emb); err != nil {
			rows.Close()
			return nil, storeErr(err)
		}
		c.distance = cosineDistanceLE(q.Vector, emb)
		cands = append(cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, storeErr(err)
	}
	return loadNearest(ctx, tx, cands, q.K)
}

// scored is a candidate document and its exact distance to the query.
type scored struct {
	rowid    int64
	distance float64
}

// loadNearest loads the k nearest of cands, nearest first.
func loadNearest(ctx context.Context, tx *sql.Tx, cands []scored, k int) ([]core.Hit, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	slices.SortFunc(cands, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.distance, b.distance), cmp.Compare(a.rowid, b.rowid))
	})
	cands = cands[:min(len(cands), k)]
	top := make([]any, len(cands))
	for i, c := range cands {
		top[i] = c.rowid
	}
	docs := make(map[int64]core.Document, len(top))
	err := queryRowids(ctx, tx, "SELECT "+selectDocumentColumns+" FROM documents", top, func(rows *sql.Rows) error {
		d, rowid, err := scanDocument(rows)
		docs[rowid] = d
		return err
	})
	if err != nil {
		return nil, err
	}
	hits := make([]core.Hit, 0, len(cands))
	for _, c := range cands {
		hits = append(hits, core.Hit{Document: docs[c.rowid], Distance: c.distance})
	}
	return hits, nil
}

// approximateSearch runs the KNN, rescores the candidates from their
// embeddings alone, and loads whole documents only for the q.K nearest. It
// reads in one transaction, so all three steps see the same snapshot.
func (db *DB) approximateSearch(ctx context.Context, q core.VectorQuery) ([]core.Hit, error) {
	conn, release, err := db.searchConn(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, storeErr(err)
	}
	defer tx.Rollback()
	rowids, err := hammingCandidates(ctx, tx, q)
	if err != nil || len(rowids) == 0 {
		return nil, err
	}
	cands := make([]scored, 0, len(rowids))
	err = queryRowids(ctx, tx, "SELECT rowid, embedding FROM documents", rowids, func(rows *sql.Rows) error {
		var c scored
		var emb []byte
		if err := rows.Scan(&c.rowid, &emb); err != nil {
			return err
		}
		c.distance = cosineDistanceLE(q.Vector, emb)
		cands = append(cands, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return loadNearest(ctx, tx, cands, q.K)
}

// hammingCandidates returns the rowids of the documents within q's filter
// whose codes are nearest to q's code, the nearest of each shard.
func hammingCandidates(ctx context.Context, tx *sql.Tx, q core.VectorQuery) ([]any, error) {
	n, err := partitionSize(ctx, tx, q.Type)
	if err != nil {
		return nil, err
	}
	perShard := (candidateCount(q.K, n) + vecShards - 1) / vecShards
	query := strings.Builder{}
	query.WriteString("SELECT rowid FROM documents_vec WHERE embedding MATCH vec_bit(?) AND k = ? AND shard = ?")
	args := []any{quantize(q.Vector), perShard, 0}
	if q.Type != "" {
		query.WriteString(" AND doc_type = ?")
		args = append(args, string(q.Type))
	}
	if len(q.Scopes) > 0 {
		query.WriteString(" AND scope IN (" + placeholders(len(q.Scopes)) + ")")
		for _, s := range q.Scopes {
			args = append(args, s)
		}
	}
	if q.ConversationID != "" {
		query.WriteString(" AND conversation_id = ?")
		args = append(args, q.ConversationID)
	}
	stmt, err := tx.PrepareContext(ctx, query.String())
	if err != nil {
		return nil, storeErr(err)
	}
	defer stmt.Close()
	var rowids []any
	for shard := range vecShards {
		args[2] = shard
		rows, err := stmt.QueryContext(ctx, args...)
		if err != nil {
			return nil, storeErr(err)
		}
		for rows.Next() {
			var r int64
			if err := rows.Scan(&r); err != nil {
				rows.Close()
				return nil, storeErr(err)
			}
			rowids = append(rowids, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, storeErr(err)
		}
	}
	return rowids, nil
}

// partitionSize estimates how many rows a KNN for type t scans, which sets
// how many candidates it can afford. The largest rowid is an upper bound
// that costs one b-tree descent. A larger store counts the documents of
// type t, but only up to the size below which the candidate count is at its
// maximum anyway, so that the count stays cheap (about 0.5 ms).
func partitionSize(ctx context.Context, tx *sql.Tx, t core.DocType) (int64, error) {
	var stored int64
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(rowid), 0) FROM documents").Scan(&stored); err != nil {
		return 0, storeErr(err)
	}
	const limit = knnBudget / maxCandidates
	if t == "" || stored <= limit {
		return stored, nil
	}
	var n int64
	err := tx.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM documents WHERE type = ? LIMIT ?)",
		string(t), limit).Scan(&n)
	if n == limit {
		n = stored
	}
	return n, storeErr(err)
}

// queryRowids runs selectFrom for the given rowids and calls fn on each row.
func queryRowids(ctx context.Context, tx *sql.Tx, selectFrom string, rowids []any, fn func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, selectFrom+" WHERE rowid IN ("+placeholders(len(rowids))+")", rowids...)
	if err != nil {
		return storeErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return storeErr(err)
		}
	}
	return storeErr(rows.Err())
}

// mmapSize is the memory map of the database file for searches: the KNN
// reads every code of the partition as large blobs, which SQLite reads past
// its page cache with one pread per page unless the file is mapped. At 100k
// memories mapping halves the search time on a 2-core VM (make bench).
// This is a connection setting a DSN cannot carry, so each search sets it on
// the connection it uses; setting the same size again costs microseconds.
const mmapSize = 1 << 30

// searchConn takes the connection a search runs on, with the database file
// mapped, and returns the function that gives it back.
//
// It prefers the write connection when that is idle. In WAL mode, a
// connection that begins a read transaction after another connection has
// committed drops its whole page cache and unmaps the file (SQLite's
// pagerBeginReadTransaction: pager_reset and sqlite3OsUnfetch), so the first
// search on a read connection after any write faults every page it touches
// back in: at 100k documents 25 ms instead of 6 (the page faults cost tens
// of microseconds each on a virtual machine). The writer's own commits leave
// its cache and mapping valid, and Ada's writes (the turns of a chat) come
// just before the searches that follow them. At most one search uses the
// writer at a time, and only when no write holds it, so concurrent searches
// still run in parallel on the read connections and a search rarely waits
// for a write (at most for one short transaction that took the writer
// between the check and the take).
func (db *DB) searchConn(ctx context.Context) (*sql.Conn, func(), error) {
	select {
	case db.writerSearch <- struct{}{}:
		if db.write.Stats().InUse == 0 {
			conn, err := mapped(ctx, db.write)
			if err != nil {
				<-db.writerSearch
				return nil, nil, err
			}
			return conn, func() { conn.Close(); <-db.writerSearch }, nil
		}
		<-db.writerSearch
	default:
	}
	conn, err := mapped(ctx, db.read)
	if err != nil {
		return nil, nil, err
	}
	return conn, func() { conn.Close() }, nil
}

// mapped takes a connection of pool with the database file mapped.
func mapped(ctx context.Context, pool *sql.DB) (*sql.Conn, error) {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return nil, storeErr(err)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA mmap_size = %d", mmapSize)); err != nil {
		conn.Close()
		return nil, storeErr(err)
	}
	return conn, nil
}

// CosineDistance is 1 − cosine similarity; 1 when either vector is zero.
func CosineDistance(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 1
	}
	return 1 - dot/math.Sqrt(na*nb)
}

// cosineDistanceLE is CosineDistance to an embedding still encoded as
// little-endian float32s, without decoding it into a slice.
func cosineDistanceLE(q []float32, emb []byte) float64 {
	if len(emb) != 4*len(q) {
		return 1
	}
	var dot, nq, ne float64
	for i, x := range q {
		y := float64(math.Float32frombits(binary.LittleEndian.Uint32(emb[4*i:])))
		dot += float64(x) * y
		nq += float64(x) * float64(x)
		ne += y * y
	}
	if nq == 0 || ne == 0 {
		return 1
	}
	return 1 - dot/math.Sqrt(nq*ne)
}

// The binary code of a vector. The sign bits of the raw components would be
// a poor code for the vectors Ada stores: the hash embedder's are sparse
// (most components are zero, so most bits say nothing) and a semantic
// model's share a common offset (so most bits agree for unrelated texts).
// A random rotation first turns every bit into a test against a random
// hyperplane (SimHash), and the Hamming distance between two codes then
// estimates the angle between the vectors, whatever their distribution.
// The rotation is a randomised Hadamard transform, O(n log n): the vector,
// padded to rotSize components, is multiplied by random signs and
// Walsh–Hadamard transformed, rotRounds times. The code has codeBlocks
// independent rotations; more bits make the estimate finer, and fewer
// candidates are needed for the same recall (make bench measures this).
// The signs come from a fixed seed: changing any of this means changing
// documents_vec in the schema and re-quantising every vector.
const (
	rotSize    = 1024 // core.Dim rounded up to a power of two
	rotRounds  = 3
	codeBlocks = 2
	codeBits   = codeBlocks * rotSize // documents_vec.embedding is BIT[2048]
)

var rotSigns = func() (s [codeBlocks][rotRounds][rotSize]float32) {
	x := uint64(0xada5eed)
	for b := range s {
		for r := range s[b] {
			for i := range s[b][r] {
				// splitmix64: a fixed, version-independent sequence.
				x += 0x9e3779b97f4a7c15
				z := (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
				z = (z ^ (z >> 27)) * 0x94d049bb133111eb
				s[b][r][i] = float32(1 - 2*int((z^(z>>31))&1))
			}
		}
	}
	return s
}()

// quantize returns the codeBits-bit code of v.
func quantize(v []float32) []byte {
	code := make([]byte, codeBits/8)
	var a [rotSize]float32
	for b := range codeBlocks {
		clear(a[:])
		copy(a[:], v)
		for r := range rotRounds {
			for i := range a {
				a[i] *= rotSigns[b][r][i]
			}
			hadamard(a[:])
		}
		for i, x := range a {
			if x > 0 {
				j := b*rotSize + i
				code[j/8] |= 1 << (j % 8)
			}
		}
	}
	return code
}

// hadamard is the in-place fast Walsh–Hadamard transform of a power-of-two
// length ≥ 4 (unnormalised: only signs are kept). The first two levels are
// done together, four components at a time.
func hadamard(a []float32) {
	for i := 0; i+4 <= len(a); i += 4 {
		s0, d0 := a[i]+a[i+1], a[i]-a[i+1]
		s1, d1 := a[i+2]+a[i+3], a[i+2]-a[i+3]
		a[i], a[i+1], a[i+2], a[i+3] = s0+s1, d0+d1, s0-s1, d0-d1
	}
	for h := 4; h < len(a); h *= 2 {
		for i := 0; i < len(a); i += 2 * h {
			x, y := a[i:i+h], a[i+h:i+2*h]
			y = y[:len(x)]
			for j := range x {
				x[j], y[j] = x[j]+y[j], x[j]-y[j]
			}
		}
	}
}
