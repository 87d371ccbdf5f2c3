package vecindex

import (
	"runtime"
	"sync/atomic"
)

// A growing segment's inverted file is trained in the background: training
// at a million rows takes seconds (0.48 s at 250k, 3.2 s at 1M when it ran
// inside Apply), and Apply runs under the index's write lock and the
// store's write lock, so every write and search waited for it. Instead
// Apply only marks the segment (training) and starts a goroutine, which
// copies the segment's heads and scopes under the read lock (searches go
// on; writes, and the searches queued behind one, wait for the copy alone), trains new lists on the copy
// without any lock, then takes the write lock to swap them in. Meanwhile
// the segment keeps its old lists (or none: a scan), maintained as before,
// and every change to its rows after the copy is logged in the order it
// was made, as the lists see it (a row's removal, a row filed): replayed
// over the new lists before the swap, they bring them to the segment's
// rows as they are then, so a row deleted meanwhile is in no list and a
// row written meanwhile is in one. The log is replayed in rounds without
// the lock while it is long (the new lists are the trainer's own until
// the swap), and its last few entries under it.

// training is a segment's inverted file being trained.
type training struct {
	// snapped is set once the trainer has copied the segment, under the
	// read lock, so that a writer (under the write lock) logs exactly the
	// changes the copy misses.
	snapped atomic.Bool
	log     []listOp
}

// listOp is one change to a segment's rows as its lists see it: row i
// removed with the segment's last row moved into it (del), or row i
// appended.
type listOp struct {
	del     bool
	i, last int32
	head    [headWords]uint64
	scope   uint32
}

// replayMax is how long a log may be when it is replayed under the write
// lock: each add costs one pass over the centroids (about a microsecond
// at a thousand lists).
const replayMax = 256

// removed logs the removal of row i (see invLists.del).
func (t *training) removed(i, last int32) {
	if t.snapped.Load() {
		t.log = append(t.log, listOp{del: true, i: i, last: last})
	}
}

// appended logs row i appended with head h.
func (t *training) appended(i int32, h *[headWords]uint64, scope uint32) {
	if t.snapped.Load() {
		t.log = append(t.log, listOp{i: i, head: *h, scope: scope})
	}
}

// replay makes log's changes to v, in order.
func (v *invLists) replay(log []listOp) {
	for k := range log {
		op := &log[k]
		if op.del {
			v.del(op.i, op.last)
		} else {
			v.add(op.i, &op.head, op.scope)
		}
	}
}

// needsLists reports whether s, with no training under way, is to be
// trained: it has reached listMin rows without lists, or has grown
// retrainGrowth times since its lists were trained.
func (s *codeSegment) needsLists(listMin int) bool {
	if s.train != nil {
		return false
	}
	if s.ivf == nil {
		return len(s.rowids) >= listMin
	}
	return len(s.rowids) >= retrainGrowth*s.ivf.trained
}

// startTraining trains s's lists in the background. x.mu must be held for
// writing.
func (x *Index) startTraining(s *codeSegment) {
	t := &training{}
	s.train = t
	x.trainers.Add(1)
	go x.train(s, t)
}

// train copies s, trains lists on the copy, and swaps them in (see above).
func (x *Index) train(s *codeSegment, t *training) {
	defer x.trainers.Done()
	x.mu.RLock()
	n := len(s.rowids)
	x.mu.RUnlock()
	// Allocated (and its pages touched) before the lock: the copy under
	// it is then a memory copy alone.
	heads := make([][headWords]uint64, n, n+n/8+1024)
	scopes := make([]uint32, n, cap(heads))
	for i := 0; i < len(heads); i += 4096 / len(heads[0]) / 8 {
		heads[i][0] = 1 // fresh memory is mapped at its first write
	}
	x.mu.RLock()
	heads = append(heads[:0], s.heads...)
	scopes = append(scopes[:0], s.scopes...)
	t.snapped.Store(true)
	x.mu.RUnlock()
	if x.trainHook != nil {
		x.trainHook()
	}
	// Half the cores: the store's writes and searches keep the rest.
	v := trainLists(heads, scopes, max(1, runtime.GOMAXPROCS(0)/2))
	heads, scopes = nil, nil
	for {
		x.mu.Lock()
		if s.train != t {
			// The index was loaded afresh meanwhile (Load): s is no
			// longer its.
			x.mu.Unlock()
			return
		}
		log := t.log
		t.log = nil
		if len(log) <= replayMax {
			v.replay(log)
			s.ivf, s.train = v, nil
			x.mu.Unlock()
			return
		}
		x.mu.Unlock()
		v.replay(log)
	}
}
