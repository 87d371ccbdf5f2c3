package storage

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ada-chat/ada/core"
)

// Search is two-stage: a Hamming-distance KNN over the binary-quantised
// vectors picks candidates (cheap: 96 bytes per row, popcount), then the
// candidates are rescored with the exact cosine distance of their float32
// embeddings. Widening the candidate set trades a little time for recall;
// the benchmark (make bench) measures both against an exact scan.
func (db *DB) Search(ctx context.Context, q core.VectorQuery) ([]core.Hit, error) {
	if q.K <= 0 {
		return nil, nil
	}
	if len(q.Vector) != core.Dim {
		return nil, core.Errorf(core.KindInvalid, "query vector has %d dimensions, want %d", len(q.Vector), core.Dim)
	}
	var (
		cands []core.Document
		err   error
	)
	if q.Tag != "" || q.RoomID != "" || q.AnyRoom || !q.OlderThan.IsZero() {
		// Filters the vector table does not carry are selective: scan them exactly.
		cands, err = db.List(ctx, q.Filter, maxExactScan)
	} else {
		cands, err = db.hammingCandidates(ctx, q, candidateCount(q.K))
	}
	if err != nil {
		return nil, err
	}
	hits := make([]core.Hit, 0, len(cands))
	for _, d := range cands {
		hits = append(hits, core.Hit{Document: d, Distance: CosineDistance(q.Vector, d.Embedding)})
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Distance < hits[j].Distance })
	if len(hits) > q.K {
		hits = hits[:q.K]
	}
	return hits, nil
}

const (
	// rescoreFactor and minCandidates size the exact rescoring stage. The
	// KNN's cost grows with its k (sqlite-vec v0.1.6 selects each chunk's
	// top k by repeated scans, k × 1024 steps per chunk: about 0.09 ms per
	// candidate at 100k memories here), so the candidate set is as small as
	// recall allows. With 2048-bit codes, 60 candidates give recall@10 of
	// 0.97 (hash embedder) and 1.00 (clustered vectors) at 100k against an
	// exact scan; make bench measures it.
	rescoreFactor = 2
	minCandidates = 60
	// maxKNN is sqlite-vec v0.1.6's limit on k.
	maxKNN = 4096
	// maxExactScan bounds the exact path used for tag, room and age filters.
	maxExactScan = 20000
)

func candidateCount(k int) int {
	return min(max(k*rescoreFactor, minCandidates), maxKNN)
}

// hammingCandidates returns the n documents within q's filter whose codes
// are nearest to q's code.
func (db *DB) hammingCandidates(ctx context.Context, q core.VectorQuery, n int) ([]core.Document, error) {
	conn, err := db.mappedReader(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	query := strings.Builder{}
	query.WriteString("SELECT rowid FROM documents_vec WHERE embedding MATCH vec_bit(?) AND k = ?")
	args := []any{quantize(q.Vector), n}
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
	rows, err := conn.QueryContext(ctx, query.String(), args...)
	if err != nil {
		return nil, storeErr(err)
	}
	var rowids []any
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
	if len(rowids) == 0 {
		return nil, nil
	}
	return documentsByRowid(ctx, conn, rowids)
}

// mmapSize is the memory map of the database file for searches: the KNN
// reads every code of the partition as large blobs, which SQLite reads past
// its page cache with one pread per page unless the file is mapped. At 100k
// memories mapping halves the search time on a 2-core VM (make bench).
// This is a connection setting a DSN cannot carry, so each search sets it on
// the connection it uses; setting the same size again costs microseconds.
const mmapSize = 1 << 30

// mappedReader takes a read connection with the database file mapped.
func (db *DB) mappedReader(ctx context.Context) (*sql.Conn, error) {
	conn, err := db.read.Conn(ctx)
	if err != nil {
		return nil, storeErr(err)
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA mmap_size = %d", mmapSize)); err != nil {
		conn.Close()
		return nil, storeErr(err)
	}
	return conn, nil
}

func documentsByRowid(ctx context.Context, conn *sql.Conn, rowids []any) ([]core.Document, error) {
	rows, err := conn.QueryContext(ctx, "SELECT "+selectDocumentColumns+
		" FROM documents WHERE rowid IN ("+placeholders(len(rowids))+")", rowids...)
	if err != nil {
		return nil, storeErr(err)
	}
	defer rows.Close()
	out := make([]core.Document, 0, len(rowids))
	for rows.Next() {
		d, _, err := scanDocument(rows)
		if err != nil {
			return nil, storeErr(err)
		}
		out = append(out, d)
	}
	return out, storeErr(rows.Err())
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

// hadamard is the in-place fast Walsh–Hadamard transform (unnormalised:
// only signs are kept).
func hadamard(a []float32) {
	for h := 1; h < len(a); h *= 2 {
		for i := 0; i < len(a); i += 2 * h {
			x, y := a[i:i+h], a[i+h:i+2*h]
			for j := range x {
				x[j], y[j] = x[j]+y[j], x[j]-y[j]
			}
		}
	}
}
