package vecindex

import (
	"container/heap"
	"math"
	"math/bits"
	"unsafe"

	"github.com/ada-chat/ada/storage/vecindex/internal/prefetch"
)

// Nearest returns the rowids of the (at most) n codes within f nearest to
// q in Hamming distance, ties by rowid: exactly, but for the segments whose
// inverted files it probes (see invLists), where they are very likely
// among them.
func (x *Index) Nearest(q *Code, f Filter, n int) []int64 {
	return x.nearest(q, nil, f, n, Effort{})
}

// NearestVector returns the rowids of the (at most) n rows within f
// nearest to v, ties by rowid: of the about shortlist rows nearest to v's
// code by their heads (as Nearest's first stage), the n nearest by the
// estimate of their inner product with v (see estimator), which ranks
// them closer to the exact order than their codes' Hamming distance.
func (x *Index) NearestVector(v []float32, f Filter, n int, eff Effort) []int64 {
	q, e := newQuery(v)
	return x.nearest(&q, e, f, n, eff)
}

// Effort is how many rows a NearestVector search ranks at each stage: the
// Shortlist nearest by the heads' Hamming distance, of which the Estimated
// nearest by the whole codes' are ranked by the estimate. Probe is the
// percent of a large segment's rows its inverted file's probe reads
// (0: probePercent). A search whose filter admits at least LargeRows rows
// (0: none) returns at least LargeCandidates rows, more than its n: the
// rows its filter admits, not the index's, are what make it large, and the
// index knows them only under its lock, which the search holds anyway.
type Effort struct{ Shortlist, Estimated, Probe, LargeRows, LargeCandidates int }

// nearest is Nearest (e nil) or NearestVector.
func (x *Index) nearest(q *Code, e *estimator, f Filter, n int, eff Effort) []int64 {
	if n <= 0 {
		return nil
	}
	x.wait()
	x.mu.RLock()
	defer x.mu.RUnlock()
	rf, ok := x.resolve(f)
	if !ok {
		return nil
	}
	var segsBuf [8]*codeSegment
	segs := x.segments(rf, segsBuf[:0])
	if eff.LargeRows > 0 {
		admitted := 0
		for _, s := range segs {
			admitted += s.admits(rf)
		}
		if admitted >= eff.LargeRows {
			n = max(n, eff.LargeCandidates)
		}
	}
	m, estimated, probe := n*prefilterFactor, n, eff.Probe
	if e != nil {
		m, estimated = max(n, eff.Shortlist), max(n, eff.Estimated)
	}
	if probe <= 0 {
		probe = probePercent
	}
	// picks holds, per segment, the rows to scan (nil: every row): those
	// of the nearest lists of a large segment where the filter admits
	// many rows and most of them, those of the filter's scopes in another.
	// (The nearest rows of a minority of a segment are farther from the
	// query than the segment's, in lists the probe would reach late.)
	picks := make([][]int32, len(segs))
	probes := make([]*probeBuf, len(segs)) // a probe's picks, their head distances and histogram
	defer func() {
		for _, p := range probes {
			if p != nil {
				x.probeBufs.Put(p)
			}
		}
	}()
	for si, s := range segs {
		if len(s.codes) >= hugeMinRows {
			s.huge.offer(s.codes)
		}
		srf, admitted := rf, s.admits(rf)
		if admitted == len(s.rowids) {
			// The scopes hold every row of the segment (a member's
			// memories, global and their own, when no other entity has
			// any): no row needs its scope checked.
			srf.scopes = nil
		}
		switch {
		case s.ivf != nil && admitted > x.exactMax && 2*admitted > len(s.rowids):
			p, _ := x.probeBufs.Get().(*probeBuf)
			if p == nil {
				p = new(probeBuf)
			}
			probes[si] = p
			s.probe(q, e, srf, n, probe, x.probeChunk, x.kernel, p)
			if !p.listed {
				picks[si] = p.rows
			}
		case srf.scopes != nil:
			picks[si] = []int32{}
			for _, sc := range srf.scopes {
				picks[si] = append(picks[si], s.scopeRows[sc]...)
			}
		}
	}
	top := make(codeHeap, 0, n)
	x.scan(segs, picks, probes, q, e, n, m, estimated, &top)
	out := make([]int64, len(top))
	for i, c := range top {
		out[i] = c.rowid
	}
	return out
}

// scanBuf is a scan's buffers, kept between scans (Index.scans): a
// search at 1,000 rows allocated 36 KB for these (pprof,
// BenchmarkMemorySearchHTTPLoop), a sixth of all the search allocated.
type scanBuf struct {
	dists []uint16              // the first stage's distances, one per row
	hist  [headWords*64 + 1]int // how many rows are at each of those
	sel   [4096]int32           // the kept rows of a run of distances
	// codeHist counts the shortlist's rows at each distance of their
	// codes (estimateShortlist).
	codeHist [codeBits + 1]int
}

// scan offers to top the n codes of the picked rows of segs (see Nearest)
// nearest to q: a first stage keeps about m by the heads' distance (given
// by a probe's for its rows), a second ranks them by the whole codes'
// distance, or with e by e's estimate.
func (x *Index) scan(segs []*codeSegment, picks [][]int32, probes []*probeBuf, q *Code, e *estimator, n, m, estimated int, top *codeHeap) {
	rows := 0
	for si, s := range segs {
		if probes[si] != nil {
			continue // its distances are the probe's
		}
		if picks[si] != nil {
			rows += len(picks[si])
		} else {
			rows += len(s.rowids)
		}
	}
	// First stage: the (about) m nearest by the heads' distance, chosen
	// by a histogram of the distances rather than a heap, which would take
	// most rows early in a scan.
	buf, _ := x.scans.Get().(*scanBuf)
	if buf == nil {
		buf = new(scanBuf)
	}
	defer x.scans.Put(buf)
	if cap(buf.dists) < rows {
		buf.dists = make([]uint16, rows)
	}
	dists, hist := buf.dists[:rows], &buf.hist
	clear(hist[:])
	segDists := make([][]uint16, len(segs)) // per segment, its picks' distances
	off := 0
	for si, s := range segs {
		if p := probes[si]; p != nil {
			segDists[si] = p.dists
			for d, c := range p.hist {
				hist[d] += c
			}
			rows += len(p.dists)
			continue
		}
		if pick := picks[si]; pick != nil {
			d := dists[off : off+len(pick)]
			off += len(pick)
			segDists[si] = d
			for j, i := range pick {
				d[j] = headDist(&s.heads[i], q)
				hist[d[j]]++
			}
			continue
		}
		d := dists[off : off+len(s.heads)]
		off += len(s.heads)
		segDists[si] = d
		x.kernel.dists(s.heads, q, d, hist)
	}
	if e != nil {
		// The estimate's stages scale with the rows read, up to the
		// effort asked for: a small store's search reads few rows, and its
		// candidates are already the exact scan's (make bench:
		// BenchmarkRecall).
		m = min(m, max(n*prefilterFactor, rows/shortlistShare))
		estimated = min(estimated, max(n, rows/estimatedShare))
	}
	limit := cut(hist[:], m) // rows at distances up to limit are kept
	// Second stage: the n nearest of those by the whole codes' distance,
	// or with e the estimated rows nearest by it, whose n nearest by the
	// estimate are the third.
	var shortlist []keptRow
	if e != nil {
		// At most every row read is kept: a small store's m exceeds its
		// rows, and a shortlist sized by m alone was most of what its
		// search allocated (pprof).
		shortlist = make([]keptRow, 0, min(m+m/4, rows))
	}
	worst := codeCand{distance: math.Inf(1)}
	sel := &buf.sel
	for si, s := range segs {
		pick, ds := picks[si], segDists[si]
		var walk *listWalk // a listed probe's rows
		if p := probes[si]; p != nil && p.listed {
			walk = &listWalk{v: s.ivf, lists: p.lists}
		}
		for lo := 0; lo < len(ds); lo += len(sel) {
			run := ds[lo:min(lo+len(sel), len(ds))]
			for _, j := range x.kernel.below(run, uint16(limit), sel[:len(run)]) {
				i := lo + int(j)
				hd := ds[i]
				switch {
				case pick != nil:
					i = int(pick[i])
				case walk != nil:
					i = walk.row(i)
				}
				if e != nil {
					shortlist = append(shortlist, keptRow{&s.codes[i], s, int32(i), hd})
					continue
				}
				code := &s.codes[i]
				h := 0
				for w := range code {
					h += bits.OnesCount64(code[w] ^ q[w])
				}
				worst = top.offer(codeCand{float64(h), s.rowids[i]}, n, worst)
			}
		}
	}
	if e != nil {
		estimateShortlist(shortlist, q, e, n, estimated, top, buf.codeHist[:])
	}
}

// estimateShortlist offers to top the n rows of shortlist nearest to q by
// e's estimate, of the estimated nearest by their whole codes' Hamming
// distance, of the wideShare times as many nearest by their first 1,024
// bits. Each stage reads its rows' codes at random (most of a search's
// time at a million rows after the probe: pprof), so it first lists the
// rows it reads, then reads them asking for the lines of the rows
// prefetchAhead places on.
func estimateShortlist(shortlist []keptRow, q *Code, e *estimator, n, estimated int, top *codeHeap, hist []int) {
	// The head's distance and the code's next 512 bits only: one cache
	// line of the code, where the whole code is four.
	clear(hist)
	for j := range shortlist {
		if j+prefetchAhead < len(shortlist) {
			prefetchCode(shortlist[j+prefetchAhead].code, 64)
		}
		k := &shortlist[j]
		h := int(k.hamming)
		for w := headWords; w < 2*headWords; w++ {
			h += bits.OnesCount64(k.code[w] ^ q[w])
		}
		k.hamming = uint16(h)
		hist[h]++
	}
	// The nearest by those 1,024 bits, then the estimated nearest of them
	// by the whole codes.
	limit1 := cut(hist, wideShare*estimated)
	clear(hist)
	wide := shortlist[:0]
	for _, k := range shortlist {
		if int(k.hamming) <= limit1 {
			wide = append(wide, k)
		}
	}
	for j := range wide {
		if j+prefetchAhead < len(wide) {
			c := wide[j+prefetchAhead].code
			prefetchCode(c, 128)
			prefetchCode(c, 192)
		}
		k := &wide[j]
		h := int(k.hamming)
		for w := 2 * headWords; w < codeWords; w++ {
			h += bits.OnesCount64(k.code[w] ^ q[w])
		}
		k.hamming = uint16(h)
		hist[h]++
	}
	limit2 := cut(hist, estimated)
	est := wide[:0]
	for _, k := range wide {
		if int(k.hamming) <= limit2 {
			est = append(est, k)
		}
	}
	worst := codeCand{distance: math.Inf(1)}
	for j, k := range est {
		if j+prefetchAhead < len(est) {
			// The head's line, the one the stages before did not read
			// from the codes' array, and the row's rowid.
			a := est[j+prefetchAhead]
			prefetchCode(a.code, 0)
			prefetch.Line(uintptr(unsafe.Pointer(&a.seg.rowids[a.i])))
		}
		worst = top.offer(codeCand{e.estimate(k.code), k.seg.rowids[k.i]}, n, worst)
	}
}

// cut is the least distance up to which the rows counted in hist (rows
// per distance) number at least want, or the last distance if none does.
func cut(hist []int, want int) int {
	limit, count := 0, 0
	for ; limit < len(hist)-1; limit++ {
		if count += hist[limit]; count >= want {
			break
		}
	}
	return limit
}

// wideShare: a NearestVector search reads whole the codes of wideShare
// times the rows it estimates, those nearest by their first 1,024 bits.
const wideShare = 4

// shortlistShare and estimatedShare: a NearestVector search keeps at most
// one in shortlistShare of the rows it reads by their heads, and estimates
// at most one in estimatedShare.
const (
	shortlistShare = 25
	estimatedShare = 8
)

// keptRow is a row the heads kept, with its code's Hamming distance (of
// its head, then its first 1,024 bits, then the whole code). Its rowid is
// read last, for the few estimated: another array read at random.
type keptRow struct {
	code    *Code
	seg     *codeSegment
	i       int32 // the row's index in seg
	hamming uint16
}

// headDist is the distance between a head and the query's first headWords
// words.
func headDist(h *[headWords]uint64, q *Code) uint16 {
	dist := 0
	for w := range h {
		dist += bits.OnesCount64(h[w] ^ q[w])
	}
	return uint16(dist)
}

// prefilterFactor is how many rows per candidate the first stage of a scan
// keeps (see Index).
const prefilterFactor = 32

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

type codeCand struct {
	distance float64
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
