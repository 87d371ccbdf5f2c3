package vecindex

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
)

// listOrder returns the lists nearest first by their centroids' distance
// to the query's head, or with e by e's estimate over the heads' bits,
// which orders them closer to where the query's nearest rows are (make
// bench: BenchmarkRecall).
func (v *invLists) listOrder(q *Code, e *estimator) []int32 {
	type ld struct {
		d float64
		l int32
	}
	order := make([]ld, len(v.cents))
	for c := range v.cents {
		if e != nil {
			order[c] = ld{e.estimateHead(&v.cents[c]), int32(c)}
		} else {
			order[c] = ld{float64(headDist(&v.cents[c], q)), int32(c)}
		}
	}
	slices.SortFunc(order, func(a, b ld) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.l, b.l)) })
	out := make([]int32, len(order))
	for i, o := range order {
		out[i] = o.l
	}
	return out
}

// probe returns the rows of s within rf in the lists nearest to q, and
// their heads' distances to q: at least percent of the rows, and on
// until n admitted rows were found (or every list was
// read), so that a filter never leaves fewer results than exist. The
// caller keeps the nearest by the heads and compares their whole codes, as
// it does for a small segment's rows.
//
// Those rows are read on every core (GOMAXPROCS), each reading a
// run of the lists: the heads' distances are most of a search's time at a
// million rows, and one search would otherwise leave the other cores idle.
func (s *codeSegment) probe(q *Code, e *estimator, rf resolvedFilter, n, percent, chunk int) ([]int32, []uint16) {
	v := s.ivf
	order := v.listOrder(q, e)
	target := len(s.rowids) * percent / 100
	first, scanned := 0, 0 // the first lists hold target rows
	for first < len(order) && scanned < target {
		scanned += len(v.lists[order[first]])
		first++
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, scanned/chunk))
	// bounds split order[:first] into runs of about as many rows.
	bounds := make([]int, workers+1)
	bounds[workers] = first
	for w, l, acc := 1, 0, 0; w < workers; w++ {
		for l < first && acc < w*scanned/workers {
			acc += len(v.lists[order[l]])
			l++
		}
		bounds[w] = l
	}
	// Each part gets its place in one buffer, room for every row of its
	// lists (all of them are kept when no scope is checked), and the
	// parts are then moved together: appends that grew a part from
	// nothing copied its hundreds of thousands of rows again and again.
	buf := probed{rows: make([]int32, scanned), dists: make([]uint16, scanned)}
	parts := make([]probed, workers)
	for w, off := 0, 0; w < workers; w++ {
		rows := 0
		for _, l := range order[bounds[w]:bounds[w+1]] {
			rows += len(v.lists[l])
		}
		parts[w] = probed{rows: buf.rows[off : off : off+rows], dists: buf.dists[off : off : off+rows]}
		off += rows
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Go(func() { parts[w].read(v, order[bounds[w]:bounds[w+1]], q, rf) })
	}
	parts[0].read(v, order[:bounds[1]], q, rf)
	wg.Wait()
	// Each part starts at or after the end of those before it: the
	// appends move it down (memmove), within the buffer.
	out := probed{rows: buf.rows[:0], dists: buf.dists[:0]}
	for _, p := range parts {
		out.rows = append(out.rows, p.rows...)
		out.dists = append(out.dists, p.dists...)
	}
	// A filter that admitted fewer than n rows of those: on, list by list.
	for l := first; l < len(order) && len(out.rows) < n; l++ {
		out.read(v, order[l:l+1], q, rf)
	}
	return out.rows, out.dists
}

// probeChunkRows is the fewest rows a probe gives one more core (chunk).
const probeChunkRows = 32_768

// probed is what a probe read of some lists: the rows within its filter
// and their heads' distances.
type probed struct {
	rows  []int32
	dists []uint16
}

func (p *probed) read(v *invLists, lists []int32, q *Code, rf resolvedFilter) {
	for _, l := range lists {
		hs, ss := v.heads[l], v.scopes[l]
		for j, i := range v.lists[l] {
			if rf.scopes != nil && !rf.holdsScope(ss[j]) {
				continue
			}
			p.rows = append(p.rows, i)
			p.dists = append(p.dists, headDist(&hs[j], q))
		}
	}
}
