package storage

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"slices"

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
	if q.Tag != "" || !q.Expired.IsZero() || q.Before != nil || q.RoomID != "" || q.AnyRoom || !q.OlderThan.IsZero() ||
		q.AfterTurn != nil || q.UpToTurn != nil {
		// Filters the code index does not carry: an exact scan of what they
		// select (they are selective and indexed).
		return db.exactSearch(ctx, q)
	}
	// Type, scope and conversation are in the code index: a long
	// conversation is scanned in memory, not read row by row.
	return db.approximateSearch(ctx, q)
}

// The candidate set. The codes of the filter's documents are scanned in
// memory (codeIndex: popcounts over 256 bytes a document, about 1 ms per
// 100k on one core), and the nearest candidates are rescored exactly from
// their embeddings, which costs a row read and a 768-dimension dot product
// each: the rescoring, not the scan, is most of a search's time. 60
// candidates give recall@10 of 0.999, 0.978 and 0.965 against an exact scan
// at 1k, 20k and 100k memories (hash embedder; 100 give 1.000, 0.996 and
// 0.989 and cost 2–5 ms more per chat, where a chat makes three or four
// searches: make bench), so the count does not depend on the store's size.
const (
	rescoreFactor = 2
	minCandidates = 60
)

// candidateCount is the number of candidates for k results.
func candidateCount(k int) int {
	return max(minCandidates, k*rescoreFactor)
}

// vecShards is the number of shards of each documents_vec partition, a
// partition key drawn at random when a code is written. It served
// sqlite-vec's KNN (whose top-k selection costs k passes over a chunk, so
// four KNNs of k/4 cost a quarter of one of k); searches now scan the
// in-memory codeIndex, and the shard is kept so that the schema and the
// durable store stay as they are.
const vecShards = 4

// insertVectorSQL writes a document's code. Its arguments are the rowid,
// type, scope, conversation id and code.
var insertVectorSQL = fmt.Sprintf(`INSERT INTO documents_vec (rowid, shard, doc_type, scope, conversation_id, embedding)
	VALUES (?, abs(random() %% %d), ?, ?, ?, vec_bit(?))`, vecShards)

// exactSearch scores every document of q's filter from its embedding alone
// (the filters that come here are selective and indexed) and loads the q.K
// nearest. It keeps only the best q.K while it reads, so its memory does not
// grow with what the filter selects, and it reads all of it: an old
// document is found as surely as a new one.
func (db *DB) exactSearch(ctx context.Context, q core.VectorQuery) ([]core.Hit, error) {
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return nil, storeErr(err)
	}
	defer tx.Rollback()
	where, args := filterSQL(q.Filter)
	rows, err := tx.QueryContext(ctx, "SELECT rowid, embedding FROM documents"+where, args...)
	if err != nil {
		return nil, storeErr(err)
	}
	best := make([]scored, 0, q.K+1) // sorted, nearest first
	for rows.Next() {
		var c scored
		var emb []byte
		if err := rows.Scan(&c.rowid, &emb); err != nil {
			rows.Close()
			return nil, storeErr(err)
		}
		c.distance = cosineDistanceLE(q.Vector, emb)
		if len(best) == q.K && byDistance(c, best[q.K-1]) >= 0 {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, c, byDistance)
		best = slices.Insert(best, at, c)
		if len(best) > q.K {
			best = best[:q.K]
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, storeErr(err)
	}
	return loadNearest(ctx, tx, best, q.K)
}

// byDistance orders candidates nearest first, ties by rowid, as
// loadNearest does, so that equal distances always resolve the same way.
func byDistance(a, b scored) int {
	return cmp.Or(cmp.Compare(a.distance, b.distance), cmp.Compare(a.rowid, b.rowid))
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
	slices.SortFunc(cands, byDistance)
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

// approximateSearch scans the in-memory codes for candidates, rescores them
// from their embeddings alone and loads whole documents only for the q.K
// nearest. The rescoring and loading read in one transaction on a read
// connection, so they see one snapshot; a candidate deleted since the scan
// is simply not found, and one whose row changed type or scope is dropped.
func (db *DB) approximateSearch(ctx context.Context, q core.VectorQuery) ([]core.Hit, error) {
	qc := codeOf(quantize(q.Vector))
	f := codeFilter{Type: q.Type, Scopes: q.Scopes, ConversationID: q.ConversationID}
	rowids := db.codes.nearest(&qc, f, candidateCount(q.K))
	if len(rowids) == 0 {
		return nil, nil
	}
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return nil, storeErr(err)
	}
	defer tx.Rollback()
	cands := make([]scored, 0, len(rowids))
	for start := 0; start < len(rowids); start += sqlChunk {
		chunk := rowids[start:min(start+sqlChunk, len(rowids))]
		args := make([]any, len(chunk))
		for i, r := range chunk {
			args[i] = r
		}
		err = queryRowids(ctx, tx, "SELECT rowid, type, scope, coalesce(conversation_id, ''), embedding FROM documents", args, func(rows *sql.Rows) error {
			var c scored
			var typ, scope, conv string
			var emb []byte
			if err := rows.Scan(&c.rowid, &typ, &scope, &conv, &emb); err != nil {
				return err
			}
			if (q.Type != "" && typ != string(q.Type)) || (len(q.Scopes) > 0 && !slices.Contains(q.Scopes, scope)) ||
				(q.ConversationID != "" && conv != q.ConversationID) {
				return nil
			}
			c.distance = cosineDistanceLE(q.Vector, emb)
			cands = append(cands, c)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return loadNearest(ctx, tx, cands, q.K)
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
