package vecindex

import (
	"math"
	"math/bits"
	"sync"
)

// An inverted file (IVF) over a very large segment's codes: the rows are
// partitioned into lists by their nearest centroid, and a search reads only
// the lists whose centroids are nearest to the query, until it has read
// probePercent of the segment's rows. The centroids are binary (k-modes:
// each bit the majority of its cluster's), trained on the heads (the
// codes' first 512 bits), so that a row's assignment and the query's list
// order cost a few popcounts per list. Each list keeps its rows' heads
// contiguous, so a probe streams them as a scan streams a segment's; the
// nearest by the heads are then compared whole, as in a scan.
//
// What it buys depends on how the vectors cluster. The hash embedder's
// barely do: at a million of its sentences the 60 candidates held 97% of
// the exact scan's 10 nearest codes when 40% of the rows were probed (8.0
// ms of CPU against the scan's 10.6), 92% at 20% (4.5 ms), 67% at 5% (2.0
// ms); at 100k a probe was no cheaper than the scan for the same recall.
// So segments below ivfMinRows are scanned, and a probe reads 40%. A
// semantic model's embeddings cluster (topics), and fewer lists would do;
// the share is kept for the recall it guarantees on the weakest case.
//
// Why an IVF rather than a graph (HNSW): the lists are the segment's own
// row indexes, a delete is a swap in one list (a graph's deletes leave
// holes or need repairs), an insert costs one pass over the centroids, and
// a filter is applied while reading a list, reading more lists until
// enough admitted rows were seen, where a graph walk under a selective
// filter degrades into a scan. Filters that admit at most exactMaxRows
// rows of a segment, or less than half of it, are scanned exactly through
// the scopes' row lists, which read only the rows admitted.
const (
	ivfMinRows   = 250_000
	exactMaxRows = 16_384
	probePercent = 40
	// retrainGrowth: a segment's lists are trained again when it has grown
	// this many times since they were, so that lists stay about √n long.
	retrainGrowth = 4
	trainSample   = 16_384
	trainRounds   = 5
)

// invLists is a segment's inverted file.
type invLists struct {
	cents [][headWords]uint64
	// lists hold the segment's row indexes; at is, per segment row, its
	// list and its place in it.
	lists [][]int32
	at    []listPos
	// heads are the rows' heads again, in the lists' order: a probe reads
	// them in a stream, where the segment's would be read at random (a
	// cache miss each; at 100k that made a probe slower than the scan of
	// the whole segment).
	heads [][][headWords]uint64
	// scopes are the rows' scopes in the lists' order, for the same
	// reason: a filter's check of s.scopes at random rows cost a probe at
	// 1M more than its heads' distances (pprof).
	scopes  [][]uint32
	trained int
}

type listPos struct{ list, i int32 }

// listCount is the number of lists for a segment of n rows: about √n,
// which balances the centroids' cost against the lists'.
func listCount(n int) int {
	return max(16, int(math.Sqrt(float64(n))))
}

// trainLists builds an inverted file over heads: centroids by k-modes on an
// evenly spaced sample (deterministic: the same rows give the same lists),
// then every row assigned to its nearest, on workers goroutines.
func trainLists(heads [][headWords]uint64, scopes []uint32, workers int) *invLists {
	n := len(heads)
	nl := listCount(n)
	step := max(1, n/trainSample)
	var sample [][headWords]uint64
	for i := 0; i < n; i += step {
		sample = append(sample, heads[i])
	}
	nl = min(nl, len(sample))
	v := &invLists{cents: make([][headWords]uint64, nl), trained: n}
	for c := range v.cents {
		v.cents[c] = sample[c*len(sample)/nl]
	}
	assign := make([]int32, len(sample))
	counts := make([][headWords * 64]int32, nl)
	sizes := make([]int32, nl)
	for range trainRounds {
		v.assign(sample, assign, workers)
		clear(counts)
		clear(sizes)
		for i, c := range assign {
			sizes[c]++
			h := &sample[i]
			for w := range h {
				for b := h[w]; b != 0; b &= b - 1 {
					counts[c][w*64+bits.TrailingZeros64(b)]++
				}
			}
		}
		for c := range v.cents {
			if sizes[c] == 0 {
				continue // an empty cluster keeps its centroid
			}
			var h [headWords]uint64
			for bit, k := range counts[c] {
				if 2*k > sizes[c] {
					h[bit/64] |= 1 << (bit % 64)
				}
			}
			v.cents[c] = h
		}
	}
	v.lists = make([][]int32, nl)
	v.heads = make([][][headWords]uint64, nl)
	v.scopes = make([][]uint32, nl)
	v.at = make([]listPos, n)
	assign = make([]int32, n)
	v.assign(heads, assign, workers)
	for i, l := range assign {
		v.at[i] = listPos{l, int32(len(v.lists[l]))}
		v.lists[l] = append(v.lists[l], int32(i))
		v.heads[l] = append(v.heads[l], heads[i])
		v.scopes[l] = append(v.scopes[l], scopes[i])
	}
	return v
}

// assign sets to[i] to the list of heads[i], on workers goroutines: the
// rows of a large segment are a restart's longest step after reading them.
func (v *invLists) assign(heads [][headWords]uint64, to []int32, workers int) {
	chunk := (len(heads) + workers - 1) / workers
	var wg sync.WaitGroup
	for start := 0; start < len(heads); start += chunk {
		wg.Go(func() {
			for i := start; i < min(start+chunk, len(heads)); i++ {
				to[i] = v.nearestList(&heads[i])
			}
		})
	}
	wg.Wait()
}

func headDistance(a, b *[headWords]uint64) int {
	d := 0
	for w := range a {
		d += bits.OnesCount64(a[w] ^ b[w])
	}
	return d
}

// nearestList is the list of the centroid nearest to h: of the shortlist
// centroids nearest by the heads' first 128 bits, the nearest by the whole
// heads. A row's assignment is what a restart pays a million times, and
// this costs a quarter of comparing whole heads; a row the shortlist sends
// to a list a little farther than its nearest is still found when the
// search probes that list.
func (v *invLists) nearestList(h *[headWords]uint64) int32 {
	var short [shortlist]int32
	var shortD [shortlist]int
	for i := range shortD {
		shortD[i] = math.MaxInt
	}
	for c := range v.cents {
		d := bits.OnesCount64(v.cents[c][0]^h[0]) + bits.OnesCount64(v.cents[c][1]^h[1])
		if d >= shortD[shortlist-1] {
			continue
		}
		i := shortlist - 1
		for ; i > 0 && shortD[i-1] > d; i-- {
			short[i], shortD[i] = short[i-1], shortD[i-1]
		}
		short[i], shortD[i] = int32(c), d
	}
	best, bestD := int32(0), math.MaxInt
	for i, c := range short {
		if shortD[i] == math.MaxInt {
			break
		}
		if d := headDistance(&v.cents[c], h); d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	return best
}

// shortlist is how many centroids nearestList compares whole.
const shortlist = 8

// add files row (the segment's next row index) in its list.
func (v *invLists) add(row int32, h *[headWords]uint64, scope uint32) {
	l := v.nearestList(h)
	v.at = append(v.at, listPos{l, int32(len(v.lists[l]))})
	v.lists[l] = append(v.lists[l], row)
	v.heads[l] = append(v.heads[l], *h)
	v.scopes[l] = append(v.scopes[l], scope)
}

// del removes row i from its list, then records that the segment's last
// row moved into i (the segment's swap-delete).
func (v *invLists) del(i, last int32) {
	p := v.at[i]
	l, hs, ss := v.lists[p.list], v.heads[p.list], v.scopes[p.list]
	end := int32(len(l) - 1)
	if p.i != end {
		moved := l[end]
		l[p.i], hs[p.i], ss[p.i] = moved, hs[end], ss[end]
		v.at[moved].i = p.i
	}
	v.lists[p.list], v.heads[p.list], v.scopes[p.list] = l[:end], hs[:end], ss[:end]
	if i != last {
		q := v.at[last]
		v.lists[q.list][q.i] = i
		v.at[i] = q
	}
	v.at = v.at[:last]
}

// admits is how many rows of s rf admits.
func (s *codeSegment) admits(rf resolvedFilter) int {
	if rf.scopes == nil {
		return len(s.rowids)
	}
	n := 0
	for _, sc := range rf.scopes {
		n += len(s.scopeRows[sc])
	}
	return n
}
