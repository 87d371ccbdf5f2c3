package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
	"github.com/ada-chat/ada/storage/vecindex"
)

// BenchmarkVectorRecall measures the store's vector search against an
// exact scan, per configuration of its stages (searchEffort): memories of
// 8 to 16 words drawn with a Zipf law from 30,000 (as the scale bench's),
// 1% in one entity's scope; 100 queries per filter, each a stored memory
// with a fifth of its words replaced; filters of the memory search (every
// scope: the whole store), of the type alone, and of the entity's scope.
// recall@10 counts ties; p50-ms is the wall time of one search with the
// document cache emptied before each configuration's pass (so the
// rescoring reads SQLite), cpu-ms/op the process's CPU time per search (a
// probe reads on every core). Sizes: ADA_BENCH_VECTOR_SIZES (default
// 20000; ADA_BENCH_DIR keeps the stores):
//
//	ADA_BENCH_VECTOR_SIZES=100000,1000000 ADA_BENCH_DIR=/tmp/vec go test -run '^$' -bench VectorRecall -benchtime 100x ./storage
//
// The configurations: the Hamming ranking with 60 and 120 candidates (the
// search before the estimate), the default, and the estimate with fewer
// or more candidates or a shorter shortlist.
func BenchmarkVectorRecall(b *testing.B) {
	ctx := context.Background()
	for _, n := range benchSizes(b, "ADA_BENCH_VECTOR_SIZES", 20_000) {
		db, texts := openCorpusStore(b, "vector", scaleCorpusOf(n, 30_000))
		db.codes.Len() // waits for the load
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		words := storagetest.NewWords(rng, scaleCommon, 30_000)
		reword := func(i int) []float32 {
			ws := strings.Fields(texts[i])
			for range 1 + len(ws)/5 {
				ws[rng.IntN(len(ws))] = words.Word()
			}
			return embed.HashVector(strings.Join(ws, " "))
		}
		const nq = 100
		for _, f := range []struct {
			name   string
			filter core.Filter
			scoped bool
		}{
			{"all", core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal, scaleEntity}}, false},
			{"type", core.Filter{Type: core.DocMemory}, false},
			{"scope", core.Filter{Type: core.DocMemory, Scopes: []string{scaleEntity}}, true},
		} {
			queries := make([][]float32, nq)
			for i := range queries {
				pick := rng.IntN(n)
				if f.scoped {
					pick = pick / 100 * 100
				}
				queries[i] = reword(pick)
			}
			// The exact scan's 10th distances, found when a
			// configuration of this filter first runs: at a million
			// rows they take minutes, wasted on a filter -bench skips.
			var kth []float64
			exactKth := func(b *testing.B) []float64 {
				if kth != nil {
					return kth
				}
				kth = make([]float64, nq)
				db.effort = searchEffort{}
				for i, q := range queries {
					exact, err := db.exactSearch(ctx, core.VectorQuery{Filter: f.filter, Vector: q, K: 10})
					if err != nil {
						b.Fatal(err)
					}
					kth[i] = exact[len(exact)-1].Distance
				}
				return kth
			}
			for _, c := range []struct {
				name string
				eff  searchEffort
			}{
				{"hamming-60", searchEffort{candidates: 60, hamming: true}},
				{"hamming-120", searchEffort{candidates: 120, hamming: true}},
				{"default", searchEffort{}},
				{"estimate-60", searchEffort{candidates: 60}},
				{"estimate-100", searchEffort{candidates: 100}},
				{"estimate-100-shortlist-4000", searchEffort{candidates: 100, Effort: vecindex.Effort{Shortlist: 4000, Estimated: 1000}}},
			} {
				b.Run(fmt.Sprintf("%d/%s/%s", n, f.name, c.name), func(b *testing.B) {
					kth := exactKth(b)
					db.effort = c.eff
					db.docs = newDocCache()
					var walls []time.Duration
					found := 0
					cpu := storagetest.ProcessCPU()
					i := 0
					for b.Loop() {
						qi := i % nq
						t0 := time.Now()
						hits, err := db.Search(ctx, core.VectorQuery{Filter: f.filter, Vector: queries[qi], K: 10})
						walls = append(walls, time.Since(t0))
						if err != nil {
							b.Fatal(err)
						}
						if i < nq {
							for _, h := range hits {
								if h.Distance <= kth[qi]+1e-9 {
									found++
								}
							}
						}
						i++
					}
					slices.Sort(walls)
					b.ReportMetric(float64(storagetest.ProcessCPU()-cpu)/1e6/float64(b.N), "cpu-ms/op")
					b.ReportMetric(float64(walls[len(walls)/2].Microseconds())/1000, "p50-ms")
					b.ReportMetric(float64(found)/float64(10*min(b.N, nq)), "recall@10")
				})
			}
		}
		db.effort = searchEffort{}
	}
}
