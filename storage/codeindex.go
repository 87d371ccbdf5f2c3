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
// The rows are kept in segments, one per type and conversation, each in
// dense parallel slices; a deletion moves the segment's last row into the
// hole. A search filtered by type or conversation scans only the segments
// within the filter, each contiguous in memory: the recall of one
// conversation's turns reads its turns alone, and a memory search the
// memories alone, not every tenth row of the whole store. The scan is
// bound by memory bandwidth (100k codes are 25 MB), so each code's first
// 512 bits are also kept apart, in heads (6.4 MB for 100k): a search picks
// about prefilterFactor times its candidates by the heads' distance, then
// the candidates by the whole codes' distance. That reads a fraction of the
// memory of one pass over the whole codes, and recall@10 after rescoring
// stays as it was (make bench; the README's performance notes).
type codeIndex struct {
	mu sync.RWMutex
	// segs are the segments, found by their key in bySegment; an emptied
	// segment stays, to be filled again.
	segs      []*codeSegment
	bySegment map[segmentKey]int32
	pos       map[int64]rowRef
	rows      int
	// names interns the types, scopes and conversation ids: a scan compares
	// small integers. It only grows (a few bytes per distinct string).
	names map[string]uint32
}

// segmentKey is a segment's type and conversation id ("" is a conversation
// id like any other), interned.
type segmentKey struct{ typ, conv uint32 }

// codeSegment holds the rows of one type and conversation.
type codeSegment struct {
	key    segmentKey
	heads  [][headWords]uint64
	codes  []code
	rowids []int64
	scopes []uint32 // interned
}

// rowRef is where a row is: its segment and its index in it.
type rowRef struct{ seg, i int32 }

// codeOp is one change to the index: a row to insert, or (del) to delete.
type codeOp struct {
	del            bool
	rowid          int64
	typ, scope     string
	conversationID string
	code           code
}

func newCodeIndex() *codeIndex {
	return &codeIndex{bySegment: make(map[segmentKey]int32), pos: make(map[int64]rowRef), names: make(map[string]uint32)}
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
	if ref, ok := x.pos[op.rowid]; ok {
		// Deleted, or replaced (reindex, or a new type or scope).
		s, i := x.segs[ref.seg], int(ref.i)
		last := len(s.rowids) - 1
		if i != last {
			s.heads[i], s.codes[i], s.rowids[i], s.scopes[i] = s.heads[last], s.codes[last], s.rowids[last], s.scopes[last]
			x.pos[s.rowids[i]] = ref
		}
		s.heads, s.codes, s.rowids, s.scopes = s.heads[:last], s.codes[:last], s.rowids[:last], s.scopes[:last]
		delete(x.pos, op.rowid)
		x.rows--
	}
	if op.del {
		return
	}
	x.add(op.rowid, segmentKey{x.intern(op.typ), x.intern(op.conversationID)}, x.intern(op.scope), &op.code)
}

// add appends a row to the segment of key. x.mu must be held for writing.
func (x *codeIndex) add(rowid int64, key segmentKey, scope uint32, c *code) {
	si, ok := x.bySegment[key]
	if !ok {
		si = int32(len(x.segs))
		x.segs = append(x.segs, &codeSegment{key: key})
		x.bySegment[key] = si
	}
	s := x.segs[si]
	x.pos[rowid] = rowRef{si, int32(len(s.rowids))}
	s.heads = append(s.heads, [headWords]uint64(c[:headWords]))
	s.codes = append(s.codes, *c)
	s.rowids = append(s.rowids, rowid)
	s.scopes = append(s.scopes, scope)
	x.rows++
}

// len is the number of codes held.
func (x *codeIndex) len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.rows
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
	x.segs, x.bySegment, x.rows = nil, make(map[segmentKey]int32), 0
	x.pos = make(map[int64]rowRef, n)
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
		x.add(rowid, segmentKey{x.internBytes(typ), x.internBytes(conv)}, x.internBytes(scope), &c)
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

// holdsSegment reports whether the rows of a segment are of the filter's
// type and conversation.
func (rf resolvedFilter) holdsSegment(key segmentKey) bool {
	return (rf.typ == anyID || key.typ == rf.typ) && (rf.conv == anyID || key.conv == rf.conv)
}

// holdsScope reports whether a row of this scope is within the filter's
// scopes.
func (rf resolvedFilter) holdsScope(scope uint32) bool {
	return rf.scopes == nil || containsID(rf.scopes, scope)
}

// segments appends to dst the non-empty segments of rf's type and
// conversation: one lookup when the filter names both. x.mu must be held.
func (x *codeIndex) segments(rf resolvedFilter, dst []*codeSegment) []*codeSegment {
	if rf.typ != anyID && rf.conv != anyID {
		if si, ok := x.bySegment[segmentKey{rf.typ, rf.conv}]; ok && len(x.segs[si].rowids) > 0 {
			dst = append(dst, x.segs[si])
		}
		return dst
	}
	for _, s := range x.segs {
		if len(s.rowids) > 0 && rf.holdsSegment(s.key) {
			dst = append(dst, s)
		}
	}
	return dst
}

// nearest returns the rowids of the (at most) n codes within f nearest to
// q in Hamming distance, ties by rowid.
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
	var segsBuf [8]*codeSegment
	segs := x.segments(rf, segsBuf[:0])
	rows := 0
	for _, s := range segs {
		rows += len(s.rowids)
	}
	// First stage: the (about) m nearest by the heads' distance, chosen
	// by a histogram of the distances rather than a heap, which would take
	// most rows early in a scan.
	m := n * prefilterFactor
	dp := headDists.Get().(*[]uint16)
	defer headDists.Put(dp)
	if cap(*dp) < rows {
		*dp = make([]uint16, rows)
	}
	dists := (*dp)[:rows]
	var hist [headWords*64 + 2]int
	const skip = headWords*64 + 1
	off := 0
	for _, s := range segs {
		d := dists[off : off+len(s.heads)]
		off += len(s.heads)
		for i := range s.heads {
			if !rf.holdsScope(s.scopes[i]) {
				d[i] = skip
				continue
			}
			c := &s.heads[i]
			dist := 0
			for w := range c {
				dist += bits.OnesCount64(c[w] ^ q[w])
			}
			d[i] = uint16(dist)
			hist[dist]++
		}
	}
	limit, kept := 0, 0 // rows at distances up to limit are kept
	for limit = 0; limit < skip-1; limit++ {
		if kept += hist[limit]; kept >= m {
			break
		}
	}
	// Second stage: the n nearest of those by the whole codes' distance.
	top := make(codeHeap, 0, n)
	worst := codeCand{distance: codeBits + 1}
	off = 0
	for _, s := range segs {
		d := dists[off : off+len(s.heads)]
		off += len(s.heads)
		for i, hd := range d {
			if int(hd) > limit {
				continue
			}
			code := &s.codes[i]
			dist := 0
			for w := range code {
				dist += bits.OnesCount64(code[w] ^ q[w])
			}
			worst = top.offer(codeCand{dist, s.rowids[i]}, n, worst)
		}
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
		ref, ok := x.pos[c.rowid]
		if !ok {
			continue
		}
		if s := x.segs[ref.seg]; !rf.holdsSegment(s.key) || !rf.holdsScope(s.scopes[ref.i]) {
			continue
		}
		kept = append(kept, c)
	}
	return kept
}

// within counts the rows within f and the rows held, and returns the rowids
// of those within f, in no order, unless there are more than max of them
// (then nil). It reads the segments' sizes, and their scopes when f has
// scopes.
func (x *codeIndex) within(f codeFilter, max int) (rowids []int64, n, total int) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	rf, ok := x.resolve(f)
	if !ok {
		return nil, 0, x.rows
	}
	var segsBuf [8]*codeSegment
	segs := x.segments(rf, segsBuf[:0])
	for _, s := range segs {
		if rf.scopes == nil {
			n += len(s.rowids)
			continue
		}
		for _, sc := range s.scopes {
			if rf.holdsScope(sc) {
				n++
			}
		}
	}
	if n > max {
		return nil, n, x.rows
	}
	rowids = make([]int64, 0, n)
	for _, s := range segs {
		if rf.scopes == nil {
			rowids = append(rowids, s.rowids...)
			continue
		}
		for i, sc := range s.scopes {
			if rf.holdsScope(sc) {
				rowids = append(rowids, s.rowids[i])
			}
		}
	}
	return rowids, n, x.rows
}

// prefilterFactor is how many rows per candidate the first stage of a scan
// keeps (see codeIndex).
const prefilterFactor = 32

// headDists holds the first stage's distances, one per row, between scans.
var headDists = sync.Pool{New: func() any { return new([]uint16) }}

// offer adds c to h if h holds fewer than n or c beats its worst, and
// returns the candidate a candidate must now beat. A tie goes to the lower
// rowid, so the candidates do not depend on the order of the scan.
func (h *codeHeap) offer(c codeCand, n int, worst codeCand) codeCand {
	if !c.before(worst) {
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
	return (*h)[0]
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

// before orders candidates nearest first, ties by rowid.
func (c codeCand) before(d codeCand) bool {
	return c.distance < d.distance || c.distance == d.distance && c.rowid < d.rowid
}

// codeHeap is a max-heap on (distance, rowid): its root is the worst kept
// candidate.
type codeHeap []codeCand

func (h codeHeap) Len() int           { return len(h) }
func (h codeHeap) Less(i, j int) bool { return h[j].before(h[i]) }
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
// afresh for every document, would be a large share of an insert's time
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
