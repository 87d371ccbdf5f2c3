package storage

import (
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"math/bits"
	"sync"

	"github.com/ada-chat/ada/core"
)

// codeWords is the length of a binary code in 64-bit words; headWords, of
// the prefix a search scans first.
const (
	codeWords = codeBits / 64
	headWords = 8
)

// code is a document's binary code (see quantize), as 64-bit words.
type code [codeWords]uint64

func codeOf(b []byte) (c code) {
	for i := range c {
		c[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return c
}

// codeIndex holds every document's binary code in memory, with the fields a
// vector search filters on, so that a search scans the codes with popcounts
// instead of running sqlite-vec's KNN (whose top-k selection is O(n·k)) on a
// connection with a warm page cache. It is loaded from documents_codes at
// Open, which stays the durable store, and follows every committed write:
// a write transaction records its changes (writeTx) and they reach the index
// only after the commit, so a rolled-back transaction leaves it untouched.
//
// The rows are kept in dense parallel slices; a deletion moves the last row
// into the hole. The scan is bound by memory bandwidth (100k codes are 25
// MB), so each code's first 512 bits are also kept apart, in heads (6.4 MB
// for 100k): a search picks about prefilterFactor times its candidates by
// the heads' distance, then the candidates by the whole codes' distance.
// At 100k codes this takes 1.1 ms instead of 2.9 for one pass over the
// whole codes, and recall@10 after rescoring stays as it was (0.988 against
// 0.989 at 100k memories, 0.996 at 20k; make bench).
type codeIndex struct {
	mu     sync.RWMutex
	heads  [][headWords]uint64
	codes  []code
	rowids []int64
	types  []uint32 // interned
	scopes []uint32 // interned
	convs  []uint32 // interned; "" is a string like any other
	pos    map[int64]int
	// names interns the types, scopes and conversation ids: a scan compares
	// small integers. It only grows (a few bytes per distinct string).
	names map[string]uint32
}

// codeOp is one change to the index: a row to insert, or (del) to delete.
type codeOp struct {
	del            bool
	rowid          int64
	typ, scope     string
	conversationID string
	code           code
}

func newCodeIndex() *codeIndex {
	return &codeIndex{pos: make(map[int64]int), names: make(map[string]uint32)}
}

func (x *codeIndex) intern(s string) uint32 {
	id, ok := x.names[s]
	if !ok {
		id = uint32(len(x.names))
		x.names[s] = id
	}
	return id
}

// apply makes ops, in order, under the write lock.
func (x *codeIndex) apply(ops []codeOp) {
	if len(ops) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for i := range ops {
		x.applyOne(&ops[i])
	}
}

func (x *codeIndex) applyOne(op *codeOp) {
	if i, ok := x.pos[op.rowid]; ok {
		// Deleted, or replaced in place (reindex).
		last := len(x.rowids) - 1
		if i != last {
			x.heads[i], x.codes[i], x.rowids[i], x.types[i], x.scopes[i], x.convs[i] =
				x.heads[last], x.codes[last], x.rowids[last], x.types[last], x.scopes[last], x.convs[last]
			x.pos[x.rowids[i]] = i
		}
		x.heads, x.codes, x.rowids, x.types, x.scopes, x.convs =
			x.heads[:last], x.codes[:last], x.rowids[:last], x.types[:last], x.scopes[:last], x.convs[:last]
		delete(x.pos, op.rowid)
	}
	if op.del {
		return
	}
	x.pos[op.rowid] = len(x.rowids)
	x.heads = append(x.heads, [headWords]uint64(op.code[:headWords]))
	x.codes = append(x.codes, op.code)
	x.rowids = append(x.rowids, op.rowid)
	x.types = append(x.types, x.intern(op.typ))
	x.scopes = append(x.scopes, x.intern(op.scope))
	x.convs = append(x.convs, x.intern(op.conversationID))
}

// len is the number of codes held.
func (x *codeIndex) len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.rowids)
}

// load reads every code from documents_codes, in one pass over that table
// (about 300 bytes a document), straight into the index.
func (x *codeIndex) load(ctx context.Context, pool *sql.DB) error {
	var n int
	if err := pool.QueryRowContext(ctx, "SELECT count(*) FROM documents_codes").Scan(&n); err != nil {
		return storeErr(err)
	}
	rows, err := pool.QueryContext(ctx, "SELECT rowid, doc_type, scope, conversation_id, code FROM documents_codes")
	if err != nil {
		return storeErr(err)
	}
	defer rows.Close()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.heads = make([][headWords]uint64, 0, n)
	x.codes = make([]code, 0, n)
	x.rowids = make([]int64, 0, n)
	x.types = make([]uint32, 0, n)
	x.scopes = make([]uint32, 0, n)
	x.convs = make([]uint32, 0, n)
	x.pos = make(map[int64]int, n)
	// RawBytes: the strings are interned, and the code is copied into
	// the index, so nothing is allocated per row.
	var rowid int64
	var typ, scope, conv, emb sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&rowid, &typ, &scope, &conv, &emb); err != nil {
			return storeErr(err)
		}
		if len(emb) != codeBits/8 {
			return core.Errorf(core.KindInternal, "documents_codes row %d: code of %d bytes, want %d", rowid, len(emb), codeBits/8)
		}
		c := codeOf(emb)
		x.pos[rowid] = len(x.rowids)
		x.heads = append(x.heads, [headWords]uint64(c[:headWords]))
		x.codes = append(x.codes, c)
		x.rowids = append(x.rowids, rowid)
		x.types = append(x.types, x.internBytes(typ))
		x.scopes = append(x.scopes, x.internBytes(scope))
		x.convs = append(x.convs, x.internBytes(conv))
	}
	return storeErr(rows.Err())
}

// internBytes is intern for a string held in b, without copying it when
// it is already known.
func (x *codeIndex) internBytes(b []byte) uint32 {
	if id, ok := x.names[string(b)]; ok {
		return id
	}
	return x.intern(string(b))
}

// codeFilter is the part of a query the index filters on.
type codeFilter struct {
	Type           core.DocType
	Scopes         []string
	ConversationID string
}

// resolvedFilter is a codeFilter in the index's name ids; anyID matches
// every row, and nil scopes every scope.
type resolvedFilter struct {
	typ, conv uint32
	scopes    []uint32
}

const anyID = ^uint32(0)

// resolve turns f into the index's ids; false when no row can match (a
// type, conversation or every scope the index has never seen). x.mu must be
// held.
func (x *codeIndex) resolve(f codeFilter) (resolvedFilter, bool) {
	rf := resolvedFilter{typ: anyID, conv: anyID}
	var ok bool
	if f.Type != "" {
		if rf.typ, ok = x.names[string(f.Type)]; !ok {
			return rf, false
		}
	}
	if f.ConversationID != "" {
		if rf.conv, ok = x.names[f.ConversationID]; !ok {
			return rf, false
		}
	}
	for _, s := range f.Scopes {
		if id, ok := x.names[s]; ok {
			rf.scopes = append(rf.scopes, id)
		}
	}
	return rf, len(f.Scopes) == 0 || len(rf.scopes) > 0
}

// holds reports whether a row of this type, conversation and scope is
// within the filter. (A value receiver and plain arguments keep the scan's
// inner loop in registers.)
func (rf resolvedFilter) holds(typ, conv, scope uint32) bool {
	return (rf.typ == anyID || typ == rf.typ) && (rf.conv == anyID || conv == rf.conv) &&
		(rf.scopes == nil || containsID(rf.scopes, scope))
}

// nearest returns the rowids of the (at most) n codes within f nearest to
// q in Hamming distance.
func (x *codeIndex) nearest(q *code, f codeFilter, n int) []int64 {
	if n <= 0 {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	rf, ok := x.resolve(f)
	if !ok {
		return nil
	}
	// First stage: the (about) m nearest by the heads' distance, chosen
	// by a histogram of the distances rather than a heap, which would take
	// most rows early in a scan.
	m := n * prefilterFactor
	dp := headDists.Get().(*[]uint16)
	defer headDists.Put(dp)
	if cap(*dp) < len(x.heads) {
		*dp = make([]uint16, len(x.heads))
	}
	dists := (*dp)[:len(x.heads)]
	var hist [headWords*64 + 2]int
	const skip = headWords*64 + 1
	for i := range x.heads {
		if !rf.holds(x.types[i], x.convs[i], x.scopes[i]) {
			dists[i] = skip
			continue
		}
		c := &x.heads[i]
		d := 0
		for w := range c {
			d += bits.OnesCount64(c[w] ^ q[w])
		}
		dists[i] = uint16(d)
		hist[d]++
	}
	limit, kept := 0, 0 // rows at distances up to limit are kept
	for limit = 0; limit < skip-1; limit++ {
		if kept += hist[limit]; kept >= m {
			break
		}
	}
	var h codeHeap // row indexes in codeCand.rowid
	for i, d := range dists {
		if int(d) <= limit {
			h = append(h, codeCand{int(d), int64(i)})
		}
	}
	// Second stage: the n nearest of those by the whole codes' distance.
	top := make(codeHeap, 0, n)
	worst := codeBits + 1
	for _, c := range h {
		code := &x.codes[c.rowid]
		d := 0
		for w := range code {
			d += bits.OnesCount64(code[w] ^ q[w])
		}
		worst = top.offer(codeCand{d, x.rowids[c.rowid]}, n, worst)
	}
	out := make([]int64, len(top))
	for i, c := range top {
		out[i] = c.rowid
	}
	return out
}

// filter keeps the candidates whose rows are in the index and within f,
// in order. Rows the index does not hold (deleted, or committed a moment
// ago and not yet applied) are left out.
func (x *codeIndex) filter(cands []scored, f codeFilter) []scored {
	x.mu.RLock()
	defer x.mu.RUnlock()
	rf, ok := x.resolve(f)
	if !ok {
		return cands[:0]
	}
	kept := cands[:0]
	for _, c := range cands {
		i, ok := x.pos[c.rowid]
		if !ok || !rf.holds(x.types[i], x.convs[i], x.scopes[i]) {
			continue
		}
		kept = append(kept, c)
	}
	return kept
}

// within counts the rows within f and the rows held, and returns the rowids
// of those within f, in no order, unless there are more than max of them
// (then nil). A scan of the interned fields, without the codes: about 50 µs
// per 100k rows.
func (x *codeIndex) within(f codeFilter, max int) (rowids []int64, n, total int) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	rf, ok := x.resolve(f)
	if !ok {
		return nil, 0, len(x.rowids)
	}
	for i := range x.rowids {
		if !rf.holds(x.types[i], x.convs[i], x.scopes[i]) {
			continue
		}
		if n++; n <= max {
			rowids = append(rowids, x.rowids[i])
		}
	}
	if n > max {
		rowids = nil
	}
	return rowids, n, len(x.rowids)
}

// prefilterFactor is how many rows per candidate the first stage of a scan
// keeps (see codeIndex).
const prefilterFactor = 32

// headDists holds the first stage's distances, one per row, between scans.
var headDists = sync.Pool{New: func() any { return new([]uint16) }}

// offer adds c to h if h holds fewer than n or c beats its worst, and
// returns the distance a candidate must now beat.
func (h *codeHeap) offer(c codeCand, n, worst int) int {
	if c.distance >= worst {
		return worst
	}
	if len(*h) < n {
		heap.Push(h, c)
		if len(*h) < n {
			return worst
		}
	} else {
		(*h)[0] = c
		heap.Fix(h, 0)
	}
	return (*h)[0].distance
}

func containsID(ids []uint32, id uint32) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

type codeCand struct {
	distance int
	rowid    int64
}

// codeHeap is a max-heap on distance: its root is the worst kept candidate.
type codeHeap []codeCand

func (h codeHeap) Len() int           { return len(h) }
func (h codeHeap) Less(i, j int) bool { return h[i].distance > h[j].distance }
func (h codeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *codeHeap) Push(x any)        { *h = append(*h, x.(codeCand)) }
func (h *codeHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// writeTx is a write transaction that records its changes to the codes, for
// the index to take after the commit.
type writeTx struct {
	*sql.Tx
	codes []codeOp
	// cascadeReason, if set, is the history reason of the memories deleted
	// because their sources went (core.Change.Reason).
	cascadeReason string
	// prepared are the writer's statements prepared at Open (DB.prepared);
	// stmts, those bound to this transaction so far, by query.
	prepared map[string]*sql.Stmt
	stmts    map[string]*sql.Stmt
}

// stmt returns one of the writer's statements prepared at Open
// (preparedSQL), bound to tx. Preparing the insert of a document compiled
// its FTS5 trigger too: that and the other statements of a write, prepared
// afresh for every document, were a third of an insert's time
// (BenchmarkPut, pprof).
func (tx *writeTx) stmt(query string) *sql.Stmt {
	if s, ok := tx.stmts[query]; ok {
		return s
	}
	p := tx.prepared[query]
	if p == nil {
		panic("storage: " + query + " is not in preparedSQL")
	}
	if tx.stmts == nil {
		tx.stmts = make(map[string]*sql.Stmt)
	}
	// Bound on a context that cannot be cancelled, as are the statements
	// run below: with one that can (every request's, over HTTP), the SQLite
	// driver starts a goroutine for every statement to watch it. The
	// transaction itself still ends with its context (database/sql rolls it
	// back), so a cancelled request writes nothing.
	s := tx.StmtContext(context.Background(), p)
	tx.stmts[query] = s
	return s
}

// exec runs one of the prepared statements in tx (see stmt).
func (tx *writeTx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return tx.stmt(query).ExecContext(context.WithoutCancel(ctx), args...)
}

// queryRow runs one of the prepared queries for one row in tx (see stmt).
func (tx *writeTx) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return tx.stmt(query).QueryRowContext(context.WithoutCancel(ctx), args...)
}

func (tx *writeTx) insertedCode(rowid int64, typ, scope, conversationID string, c []byte) {
	tx.codes = append(tx.codes, codeOp{rowid: rowid, typ: typ, scope: scope, conversationID: conversationID, code: codeOf(c)})
}

func (tx *writeTx) deletedCode(rowid int64) {
	tx.codes = append(tx.codes, codeOp{del: true, rowid: rowid})
}
