package vecindex

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// BenchmarkTrainLists times the training of a segment's inverted file (the
// centroids and every row's assignment), which a restart's background load
// pays once per large segment and a growing segment each time it has grown
// retrainGrowth times.
func BenchmarkTrainLists(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	heads := randomHeads(rng, 100_000)
	for b.Loop() {
		trainLists(heads, make([]uint32, len(heads)), runtime.GOMAXPROCS(0))
	}
}

// BenchmarkNearest times a search of 100k clustered codes for 60
// candidates through an inverted file (which a segment gets only from
// ivfMinRows rows on) and by an exact scan of every code, and logs the
// inverted file's recall of the exact scan's 10 nearest (recall@10).
func BenchmarkNearest(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 100_000
	codes := topicVectors(rng, n, 2000)
	ops := make([]Op, n)
	for i := range ops {
		ops[i] = Op{Rowid: int64(i), Type: "memory", Scope: "global", Code: codes[i]}
	}
	queries := make([]Code, 100)
	for i := range queries {
		queries[i] = codes[rng.IntN(n)]
		queries[i][rng.IntN(codeWords)] ^= rng.Uint64()
	}
	for _, mode := range []struct {
		name    string
		listMin int
	}{{"inverted file", 20_000}, {"exact", n + 1}} {
		x := New()
		x.listMin = mode.listMin
		x.Apply(ops)
		x.trainers.Wait()
		b.Run(mode.name, func(b *testing.B) {
			found := 0
			for i, q := range queries {
				kth := exactNearest(codes, &q, 10, func(int) bool { return true })
				within := 0
				for _, r := range x.Nearest(&queries[i], Filter{}, 60) {
					if hamming(&codes[r], &q) <= kth {
						within++
					}
				}
				found += min(within, 10)
			}
			b.Logf("recall@10 of the 60 candidates: %.3f", float64(found)/float64(10*len(queries)))
			i := 0
			for b.Loop() {
				x.Nearest(&queries[i%len(queries)], Filter{}, 60)
				i++
			}
		})
	}
}
