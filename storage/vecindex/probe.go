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

// probe sets p to the rows of s within rf in the lists nearest to q, their
// heads' distances to q and the distances' histogram: at least percent of
// the rows, and on until n admitted rows were found (or every list was
// read), so that a filter never leaves fewer results than exist. The
// caller keeps the nearest by the heads and compares their whole codes, as
// it does for a small segment's rows.
//
// Those rows are read on every core (GOMAXPROCS), each reading a
// run of the lists: the heads' distances are most of a search's time at a
// million rows, and one search would otherwise leave the other cores idle.
func (s *codeSegment) probe(q *Code, e *estimator, rf resolvedFilter, n, percent, chunk int, k headKernel, p *probeBuf) {
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
	// Each part gets its place in p's buffers (kept from probe to probe:
	// zeroing and collecting them cost as much as the reads), room for
	// every row of its lists (all of them are kept when no scope is
	// checked), and the parts are then moved together.
	if cap(p.rows) < scanned {
		p.rows = make([]int32, scanned)
	}
	if cap(p.dists) < scanned { // grown apart from rows by a probe's reading on
		p.dists = make([]uint16, scanned)
	}
	p.rows, p.dists = p.rows[:0], p.dists[:0]
	clear(p.hist[:])
	// With no scope to check, every row of a list read is the probe's:
	// the lists name them (copying their 400k row numbers at 1M cost a
	// twentieth of a search: pprof).
	p.listed, p.lists = rf.scopes == nil, p.lists[:0]
	if p.listed {
		p.lists = append(p.lists, order[:first]...)
	}
	parts := make([]probed, workers)
	for len(p.hists) < workers-1 {
		p.hists = append(p.hists, new([headWords*64 + 1]int))
	}
	for w, off := 0, 0; w < workers; w++ {
		rows := 0
		for _, l := range order[bounds[w]:bounds[w+1]] {
			rows += len(v.lists[l])
		}
		parts[w] = probed{rows: p.rows[off : off : off+rows], dists: p.dists[off : off : off+rows], kernel: k}
		off += rows
		if w == 0 {
			parts[w].hist = &p.hist
		} else {
			parts[w].hist = p.hists[w-1]
			clear(parts[w].hist[:])
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Go(func() { parts[w].read(v, order[bounds[w]:bounds[w+1]], q, rf) })
	}
	parts[0].read(v, order[:bounds[1]], q, rf)
	wg.Wait()
	// Each part starts at or after the end of those before it: the
	// appends move it down (memmove), within the buffer, unless it is
	// there already (every part but a filtered one's successors).
	out := probed{rows: p.rows[:0], dists: p.dists[:0], hist: &p.hist, kernel: k}
	for w, part := range parts {
		out.rows = appendDown(out.rows, part.rows)
		out.dists = appendDown(out.dists, part.dists)
		if w > 0 {
			for d, c := range part.hist {
				p.hist[d] += c
			}
		}
	}
	// A filter that admitted fewer than n rows of those: on, list by list.
	for l := first; l < len(order) && len(out.dists) < n; l++ {
		out.read(v, order[l:l+1], q, rf)
		if p.listed {
			p.lists = append(p.lists, order[l])
		}
	}
	p.rows, p.dists = out.rows, out.dists
}

// probeBuf is what a probe read: rows within its filter, their heads'
// distances, and how many rows are at each distance. When no scope was
// checked (listed) the rows are those of lists, one after the other, and
// rows is empty.
type probeBuf struct {
	rows  []int32
	dists []uint16
	hist  [headWords*64 + 1]int
	// hists are the other cores' parts' histograms, added into hist.
	hists  []*[headWords*64 + 1]int
	listed bool
	lists  []int32
}

// listWalk gives the rows at a listed probe's positions, asked in
// increasing order.
type listWalk struct {
	v     *invLists
	lists []int32
	// li is the list of the last position asked, start its first
	// position.
	li, start int
}

func (w *listWalk) row(j int) int {
	l := w.v.lists[w.lists[w.li]]
	for j >= w.start+len(l) {
		w.start += len(l)
		w.li++
		l = w.v.lists[w.lists[w.li]]
	}
	return int(l[j-w.start])
}

// probeChunkRows is the fewest rows a probe gives one more core (chunk).
const probeChunkRows = 32_768

// probed is what a probe read of some lists: the rows within its filter,
// their heads' distances, and the distances' histogram.
type probed struct {
	rows   []int32
	dists  []uint16
	hist   *[headWords*64 + 1]int
	kernel headKernel
}

func (p *probed) read(v *invLists, lists []int32, q *Code, rf resolvedFilter) {
	for _, l := range lists {
		hs, ss := v.heads[l], v.scopes[l]
		// Every row's distance written in place, then (with scopes to
		// check) those of the rows within them moved down over the rest.
		at := len(p.dists)
		p.dists = slices.Grow(p.dists, len(hs))[:at+len(hs)]
		d := p.dists[at:]
		if rf.scopes == nil { // the rows are the list's (probeBuf.listed)
			p.kernel.dists(hs, q, d, p.hist)
			continue
		}
		p.kernel.dists(hs, q, d, nil)
		k := 0
		for j, i := range v.lists[l] {
			if !rf.holdsScope(ss[j]) {
				continue
			}
			hd := d[j]
			p.rows = append(p.rows, i)
			d[k] = hd
			p.hist[hd]++
			k++
		}
		p.dists = p.dists[:at+k]
	}
}

// appendDown is append(dst, src...) for a src within dst's capacity at or
// after its end, which it leaves in place when it starts there: a probe's
// parts are moved together, and at a million rows copying 400k rows and
// distances onto themselves cost a twentieth of a search (pprof).
func appendDown[T any](dst, src []T) []T {
	if n := len(dst); len(src) > 0 && n < cap(dst) && &dst[:n+1][n] == &src[0] {
		return dst[:n+len(src)]
	}
	return append(dst, src...)
}
