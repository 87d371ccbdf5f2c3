package vecindex

import (
	"math/rand/v2"
	"testing"
)

// A probe's buffer comes back from the pool with its rows and distances
// grown apart: a probe that reads on past its share (too few admitted
// rows) appends to each, and the allocator rounds 4-byte and 2-byte
// elements to different size classes (1 + 1,093 rows: room for 1,216
// rowids, 1,152 distances). The next probe must fit both, not the rows
// alone.
func TestProbeReusesABufferGrownApart(t *testing.T) {
	const n = 3000
	x, codes := probedIndex(rand.New(rand.NewPCG(21, 22)), n)
	if _, err := x.Rows(); err != nil {
		t.Fatal(err)
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if len(x.segs) != 1 || x.segs[0].ivf == nil {
		t.Fatalf("%d segments: the test does not reach the inverted file", len(x.segs))
	}
	rf, ok := x.resolve(Filter{})
	if !ok {
		t.Fatal("the empty filter resolves to nothing")
	}
	p := &probeBuf{rows: make([]int32, 0, n)} // room for the rowids only
	x.segs[0].probe(&codes[0], nil, rf, 10, probePercent, x.probeChunk, x.kernel, p)
	rows := len(p.rows)
	if p.listed { // the rows are its lists'
		rows = 0
		for _, l := range p.lists {
			rows += len(x.segs[0].ivf.lists[l])
		}
	}
	if rows == 0 || rows != len(p.dists) {
		t.Fatalf("the probe gave %d rows and %d distances", rows, len(p.dists))
	}
}

// A probe that checks no scope names its rows by the lists it read: each
// distance is that of the row its list gives at its place, every row read
// once, those read on past the share included.
func TestListedProbeRows(t *testing.T) {
	const n = 3000
	x, codes := probedIndex(rand.New(rand.NewPCG(23, 24)), n)
	x.mu.RLock()
	defer x.mu.RUnlock()
	s := x.segs[0]
	if s.ivf == nil {
		t.Fatal("the test does not reach the inverted file")
	}
	rf, _ := x.resolve(Filter{})
	for _, want := range []int{10, 2500} { // within the share, and read on past it
		p := new(probeBuf)
		s.probe(&codes[7], nil, rf, want, probePercent, x.probeChunk, x.kernel, p)
		if !p.listed || len(p.rows) != 0 || len(p.dists) < min(want, n) {
			t.Fatalf("asked for %d: listed %v, %d rows, %d distances", want, p.listed, len(p.rows), len(p.dists))
		}
		walk := &listWalk{v: s.ivf, lists: p.lists}
		seen := make(map[int]bool)
		for j, d := range p.dists {
			i := walk.row(j)
			if seen[i] || d != headDist(&s.heads[i], &codes[7]) {
				t.Fatalf("asked for %d: position %d gives row %d (seen %v), distance %d, its head's %d", want, j, i, seen[i], d, headDist(&s.heads[i], &codes[7]))
			}
			seen[i] = true
		}
	}
}

// probedIndex is a small index (smallIndex) of n memories' codes around
// 100 topics, all global, its inverted file trained.
func probedIndex(rng *rand.Rand, n int) (*Index, []Code) {
	codes := topicVectors(rng, n, 100)
	x := smallIndex()
	ops := make([]Op, n)
	for i := range ops {
		ops[i] = Op{Rowid: int64(i), Type: "memory", Scope: "global", Code: codes[i]}
	}
	x.Apply(ops)
	x.trainers.Wait()
	return x, codes
}
