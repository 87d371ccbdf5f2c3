package vecindex

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkGrowthPause grows an index of random codes (one segment, as a
// store's memories) in writes of 100 rows past the size at which its lists
// are first trained (ivfMinRows), and on until the training has ended,
// while a searcher asks for 60 candidates in a loop: it reports the
// longest write (Apply) and the longest search, which waited for the
// training when it ran inside Apply. ADA_BENCH_VEC_GROW sets the rows
// written before the threshold is passed (default 300,000: the lists are
// trained at 250,000); ADA_BENCH_VEC_GROW=1100000 passes the retraining at
// 1M.
func BenchmarkGrowthPause(b *testing.B) {
	n := benchRows(b, "ADA_BENCH_VEC_GROW", 300_000)
	rng := rand.New(rand.NewPCG(5, 6))
	const batch = 100
	code := func() Code {
		var c Code
		for w := range c {
			c[w] = rng.Uint64()
		}
		return c
	}
	var maxWrite, maxSearch time.Duration
	for b.Loop() {
		x := New()
		var stop atomic.Bool
		var searches sync.WaitGroup
		q := code()
		searches.Go(func() {
			for !stop.Load() {
				t0 := time.Now()
				x.Nearest(&q, Filter{}, 60)
				maxSearch = max(maxSearch, time.Since(t0))
			}
		})
		ops := make([]Op, batch)
		for rowid := 0; ; {
			for i := range ops {
				ops[i] = Op{Rowid: int64(rowid), Type: "memory", Scope: "global", Code: code()}
				rowid++
			}
			t0 := time.Now()
			x.Apply(ops)
			maxWrite = max(maxWrite, time.Since(t0))
			if rowid >= n {
				if train, lists := trainingState(x); !train && lists {
					break
				}
			}
		}
		stop.Store(true)
		searches.Wait()
		x.trainers.Wait()
	}
	b.ReportMetric(float64(maxWrite.Microseconds())/1e3, "max-write-ms")
	b.ReportMetric(float64(maxSearch.Microseconds())/1e3, "max-search-ms")
}
