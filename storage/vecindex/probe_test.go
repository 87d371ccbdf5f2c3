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
	rng := rand.New(rand.NewPCG(21, 22))
	const n = 3000
	codes := topicVectors(rng, n, 100)
	x := smallIndex()
	ops := make([]Op, n)
	for i := range ops {
		ops[i] = Op{Rowid: int64(i), Type: "memory", Scope: "global", Code: codes[i]}
	}
	x.Apply(ops)
	x.trainers.Wait()
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
	if len(p.rows) == 0 || len(p.rows) != len(p.dists) {
		t.Fatalf("the probe gave %d rows and %d distances", len(p.rows), len(p.dists))
	}
}
