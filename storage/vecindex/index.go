package vecindex

import (
	"fmt"
	"math"
	"runtime"
	"sync"
)

// Index holds every document's binary code in memory, with the fields a
// vector search filters on, so that a search scans the codes with popcounts
// instead of running sqlite-vec's KNN (whose top-k selection is O(n·k)) on a
// connection with a warm page cache. The store loads it from its durable
// copy of the codes (Load) and gives it every committed write (Apply): its
// write transactions record their changes and hand them over only after the
// commit, so a rolled-back transaction leaves the index untouched.
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
// stays as it was (make bench; docs/operators.md, "Performance").
type Index struct {
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
	// scans holds a scan's buffers (*scanBuf) between scans: its
	// first-stage distances are as long as the index, so they are kept by
	// the index they measure rather than shared by every index of the
	// process.
	scans sync.Pool
	// probeBufs holds probes' rows and distances (*probeBuf) between
	// searches, as scans a scan's.
	probeBufs sync.Pool
	// loaded is closed (under mu) once the index holds what it was loaded
	// from (at once for New); until then (NewLoading) Apply queues its ops
	// in pending, and every read waits.
	loaded  chan struct{}
	pending []Op
	// kernel computes the heads' distances (with AVX-512 or AVX2 where
	// the CPU has them; tests compare each with the Go loop).
	kernel headKernel
	// listMin, exactMax and probeChunk are ivfMinRows, exactMaxRows and
	// probeChunkRows, smaller in tests, which run the same code on fewer
	// rows.
	listMin, exactMax, probeChunk int
	// trainers are the segments' trainings (retrain.go) and growths
	// (grow.go) under way;
	// trainHook, if set (tests), runs in each once it has copied its
	// segment, before it trains.
	trainers  sync.WaitGroup
	trainHook func()
	// growMin is growMinRows (smaller in tests) on an index that serves,
	// 0 on the one a Load fills, which nobody reads yet; growHook, if set
	// (tests), runs in each growth once it has copied the rows, before the
	// swap.
	growMin  int
	growHook func()
}

// segmentKey is a segment's type and conversation id ("" is a conversation
// id like any other), interned.
type segmentKey struct{ typ, conv uint32 }

// codeSegment holds the rows of one type and conversation.
type codeSegment struct {
	key    segmentKey
	heads  [][headWords]uint64
	codes  []Code
	rowids []int64
	scopes []uint32 // interned
	// scopeRows lists the rows (indexes) of each scope, and scopeAt is,
	// per row, its place in its scope's list: a search within scopes
	// knows how many rows it admits, and reads only theirs.
	scopeRows map[uint32][]int32
	scopeAt   []int32
	// ivf, once the segment has ivfMinRows rows, partitions them (see
	// invLists); train is set while new lists are trained (retrain.go).
	ivf   *invLists
	train *training
	// grow is set while the codes are copied into larger slices (grow.go).
	grow *growing
	// huge is the codes' array last offered huge pages (huge.go).
	huge hugeAdvice
}

// rowRef is where a row is: its segment and its index in it.
type rowRef struct{ seg, i int32 }

// Op is one change to the index: a row to insert (or replace), or (Del) to
// delete.
type Op struct {
	Del          bool
	Rowid        int64
	Type, Scope  string
	Conversation string
	Code         Code
}

// New returns an empty index.
func New() *Index {
	x := NewLoading()
	close(x.loaded)
	return x
}

// NewLoading returns an empty index that is to be loaded (Load), maybe in
// the background: until the load ends, Apply queues the writes committed
// meanwhile, Ready is false and reads wait.
func NewLoading() *Index {
	return &Index{bySegment: make(map[segmentKey]int32), pos: make(map[int64]rowRef), names: make(map[string]uint32),
		loaded: make(chan struct{}), listMin: ivfMinRows, exactMax: exactMaxRows, growMin: growMinRows, probeChunk: probeChunkRows,
		kernel: headKernel{level: simdLevel()}}
}

// Ready reports whether the index is loaded: its reads do not wait.
func (x *Index) Ready() bool {
	select {
	case <-x.loaded:
		return true
	default:
		return false
	}
}

// wait returns once the index is loaded.
func (x *Index) wait() { <-x.loaded }

func (x *Index) intern(s string) uint32 {
	id, ok := x.names[s]
	if !ok {
		id = uint32(len(x.names))
		x.names[s] = id
	}
	return id
}

// Apply makes ops, in order, under the write lock.
func (x *Index) Apply(ops []Op) {
	if len(ops) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.Ready() {
		// Replayed over the loaded rows: an op is idempotent (the last
		// one for a row wins), so those the load also read do no harm.
		x.pending = append(x.pending, ops...)
		return
	}
	for i := range ops {
		x.applyOne(&ops[i])
	}
}

func (x *Index) applyOne(op *Op) {
	if ref, ok := x.pos[op.Rowid]; ok {
		// Deleted, or replaced (reindex, or a new type or scope).
		s, i := x.segs[ref.seg], int(ref.i)
		last := len(s.rowids) - 1
		if s.ivf != nil {
			s.ivf.del(int32(i), int32(last))
		}
		if s.train != nil {
			s.train.removed(int32(i), int32(last))
		}
		s.delScope(int32(i), int32(last))
		if i != last {
			s.heads[i], s.codes[i], s.rowids[i], s.scopes[i] = s.heads[last], s.codes[last], s.rowids[last], s.scopes[last]
			x.pos[s.rowids[i]] = ref
			s.touched(i)
		}
		s.heads, s.codes, s.rowids, s.scopes = s.heads[:last], s.codes[:last], s.rowids[:last], s.scopes[:last]
		delete(x.pos, op.Rowid)
		x.rows--
	}
	if op.Del {
		return
	}
	x.add(op.Rowid, segmentKey{x.intern(op.Type), x.intern(op.Conversation)}, x.intern(op.Scope), &op.Code)
}

// delScope removes row i from its scope's list, then records that the
// segment's last row moved into i (before the move: s.scopes[last] is the
// moving row's).
func (s *codeSegment) delScope(i, last int32) {
	sc := s.scopes[i]
	l, p := s.scopeRows[sc], s.scopeAt[i]
	end := int32(len(l) - 1)
	if p != end {
		moved := l[end]
		l[p] = moved
		s.scopeAt[moved] = p
	}
	if end == 0 {
		delete(s.scopeRows, sc)
	} else {
		s.scopeRows[sc] = l[:end]
	}
	if i != last {
		s.scopeRows[s.scopes[last]][s.scopeAt[last]] = i
		s.scopeAt[i] = s.scopeAt[last]
	}
	s.scopeAt = s.scopeAt[:last]
}

// add appends a row to the segment of key. x.mu must be held for writing.
func (x *Index) add(rowid int64, key segmentKey, scope uint32, c *Code) {
	si, ok := x.bySegment[key]
	if !ok {
		si = int32(len(x.segs))
		x.segs = append(x.segs, &codeSegment{key: key, scopeRows: make(map[uint32][]int32)})
		x.bySegment[key] = si
	}
	s := x.segs[si]
	x.pos[rowid] = rowRef{si, int32(len(s.rowids))}
	s.heads = append(s.heads, [headWords]uint64(c[:headWords]))
	s.codes = append(s.codes, *c)
	s.touched(len(s.codes) - 1)
	s.rowids = append(s.rowids, rowid)
	s.scopes = append(s.scopes, scope)
	s.scopeAt = append(s.scopeAt, int32(len(s.scopeRows[scope])))
	s.scopeRows[scope] = append(s.scopeRows[scope], int32(len(s.rowids)-1))
	x.rows++
	last := int32(len(s.rowids) - 1)
	if s.ivf != nil {
		s.ivf.add(last, &s.heads[last], scope)
	}
	if s.train != nil {
		s.train.appended(last, &s.heads[last], scope)
	} else if s.needsLists(x.listMin) {
		x.startTraining(s)
	}
	if x.growMin > 0 && s.needsRoom(x.growMin) {
		x.startGrowing(s)
	}
}

// Len is the number of codes held (once loaded).
func (x *Index) Len() int {
	x.wait()
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.rows
}

// RawRow is one row of the codes' durable copy as Load reads it: its bytes
// need only last until the next row is read.
type RawRow struct {
	Rowid                     int64
	Type, Scope, Conversation []byte
	Code                      []byte
}

// Load replaces what the index holds with the rows next reads, until it
// reports no more (false) or fails; n, the number of rows expected, sizes
// the index. The rows are read and the inverted files trained without the
// lock, into a new index that then replaces x's contents, and the ops
// Apply queued meanwhile are replayed over it: next must read a snapshot
// taken after x was made with NewLoading, so that every write it misses is
// among them. On an index that was not loading, no write may reach x
// during a Load. The strings are interned and the code copied, so nothing
// is allocated per row. On failure x is left as it was.
func (x *Index) Load(n int, next func(*RawRow) (bool, error)) error {
	// The fresh index never trains as it grows (listMin): its segments'
	// inverted files are trained once, when every row is read.
	fresh := &Index{bySegment: make(map[segmentKey]int32), pos: make(map[int64]rowRef, n),
		names: make(map[string]uint32), listMin: math.MaxInt}
	var r RawRow
	for {
		ok, err := next(&r)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if len(r.Code) != CodeBytes {
			return fmt.Errorf("row %d: code of %d bytes, want %d", r.Rowid, len(r.Code), CodeBytes)
		}
		c := CodeOf(r.Code)
		fresh.add(r.Rowid, segmentKey{fresh.internBytes(r.Type), fresh.internBytes(r.Conversation)}, fresh.internBytes(r.Scope), &c)
	}
	for _, s := range fresh.segs {
		if len(s.rowids) >= x.listMin {
			s.ivf = trainLists(s.heads, s.scopes, runtime.GOMAXPROCS(0))
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, s := range x.segs {
		s.train, s.grow = nil, nil // their goroutines find them replaced
	}
	x.segs, x.bySegment, x.pos, x.rows, x.names = fresh.segs, fresh.bySegment, fresh.pos, fresh.rows, fresh.names
	for i := range x.pending {
		x.applyOne(&x.pending[i])
	}
	x.pending = nil
	if !x.Ready() {
		close(x.loaded)
	}
	return nil
}

// internBytes is intern for a string held in b, without copying it when
// it is already known.
func (x *Index) internBytes(b []byte) uint32 {
	if id, ok := x.names[string(b)]; ok {
		return id
	}
	return x.intern(string(b))
}
