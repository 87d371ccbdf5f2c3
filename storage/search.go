package storage

import (
	"context"
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
		cands, err = db.hammingCandidates(ctx, q)
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
	// rescoreFactor and minCandidates size the exact rescoring stage.
	rescoreFactor = 20
	minCandidates = 200
	// maxKNN is sqlite-vec v0.1.6's limit on k.
	maxKNN = 4096
	// maxExactScan bounds the exact path used for tag, room and age filters.
	maxExactScan = 20000
)

func candidateCount(k int) int {
	return min(max(k*rescoreFactor, minCandidates), maxKNN)
}

func (db *DB) hammingCandidates(ctx context.Context, q core.VectorQuery) ([]core.Document, error) {
	query := strings.Builder{}
	query.WriteString("SELECT rowid FROM documents_vec WHERE embedding MATCH vec_bit(?) AND k = ?")
	args := []any{quantize(q.Vector), candidateCount(q.K)}
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
	rows, err := db.read.QueryContext(ctx, query.String(), args...)
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
	return db.documentsByRowid(ctx, rowids)
}

func (db *DB) documentsByRowid(ctx context.Context, rowids []any) ([]core.Document, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT "+selectDocumentColumns+
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
