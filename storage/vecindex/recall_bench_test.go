package vecindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
)

// BenchmarkRecall measures the index's candidates against an exact scan on
// ADA_BENCH_N hash-embedder sentences (default 20000; 8 to 16 words drawn
// with a Zipf law from 30,000, as the scale bench's memories), for 100
// queries (a stored sentence with a fifth of its words replaced): per
// ranking (Hamming distance, or the estimate) and number of rows kept by
// the heads and candidates, recall@10 after the candidates are rescored
// exactly (ties count), and the time of the index's part (wall, and CPU of
// both cores), the default once more with its probe on one core, and with
// the heads' distances computed in Go (kernel-0) and with AVX2 (kernel-1)
// instead of the CPU's best (headKernel). The store's own
// search, with SQLite's rescoring, is storage's BenchmarkVectorRecall.
func BenchmarkRecall(b *testing.B) {
	const defaultShortlist, defaultProbe = 8000, 40 // storage's defaultEffort
	n := benchRows(b, "ADA_BENCH_N", 20_000)
	rng := rand.New(rand.NewPCG(39, 7))
	words := storagetest.NewWords(rng, strings.Fields("the of and to in friday test her on at meeting project coffee"), 30000)
	// Only the texts are kept (a million vectors are 3 GB): a vector is
	// made again when a candidate is rescored.
	texts := make([]string, n)
	ops := make([]Op, n)
	for i := range texts {
		texts[i] = strings.Join(words.Sentence(8, 16), " ")
		ops[i] = Op{Rowid: int64(i), Type: "memory", Scope: "global", Code: CodeOf(Quantize(embed.HashVector(texts[i])))}
	}
	x := New()
	x.Apply(ops)
	x.trainers.Wait() // the lists, trained in the background
	ops = nil
	// The large code arrays' huge pages, collapsed now rather than in the
	// background during the first configuration's searches, whose CPU
	// they would count (offer then finds them advised).
	for _, s := range x.segs {
		if len(s.codes) >= hugeMinRows {
			base := &s.codes[:cap(s.codes)][0]
			s.huge.addr.Store(uintptr(unsafe.Pointer(base)))
			adviseHuge(unsafe.Slice((*byte)(unsafe.Pointer(base)), cap(s.codes)*int(unsafe.Sizeof(Code{}))))
		}
	}
	queries := make([][]float32, 100)
	for qi := range queries {
		ws := strings.Fields(texts[rng.IntN(n)])
		for range 1 + len(ws)/5 {
			ws[rng.IntN(len(ws))] = words.Word()
		}
		queries[qi] = embed.HashVector(strings.Join(ws, " "))
	}
	kth := exactKth(texts, queries, 10)
	rescore := func(q []float32, cands []int64) []float64 {
		d := make([]float64, len(cands))
		for i, r := range cands {
			d[i] = CosineDistance(q, embed.HashVector(texts[r]))
		}
		slices.Sort(d)
		return d[:min(10, len(d))]
	}
	for _, c := range []struct {
		estimate                    bool
		shortlist, estimated, cands int
		probe                       int // percent of a large segment's rows (0: probePercent)
		oneCore                     bool
		kernel                      int // the heads' kernel's level, 1 + headKernel.level (0: the CPU's best)
	}{
		{false, 60 * prefilterFactor, 0, 60, 0, false, 0}, {false, 120 * prefilterFactor, 0, 120, 0, false, 0}, {false, 240 * prefilterFactor, 0, 240, 0, false, 0},
		{true, 4000, 1000, 60, 0, false, 0}, {true, 8000, 1000, 60, 0, false, 0}, {true, 8000, 1000, 100, 0, false, 0}, {true, 16000, 1000, 100, 0, false, 0},
		// Less of the inverted file probed, now that its lists are read
		// in the estimate's order.
		{true, 16000, 1000, 100, 30, false, 0}, {true, 8000, 1000, 100, 30, false, 0}, {true, 8000, 1000, 60, 30, false, 0},
		{true, 8000, 1000, 100, 25, false, 0}, {true, 8000, 1000, 100, 20, false, 0}, {true, 8000, 1000, 60, 20, false, 0},
		{true, 6000, 1000, 100, 15, false, 0}, {true, 4000, 1000, 100, 10, false, 0},
		// The store's default, its probe read on one core.
		{true, defaultShortlist, 1000, 100, defaultProbe, true, 0},
		// The default with the heads' distances in Go, and with AVX2
		// (skipped where the CPU lacks it).
		{true, defaultShortlist, 1000, 100, defaultProbe, false, 1}, {true, defaultShortlist, 1000, 100, defaultProbe, false, 2},
	} {
		x.probeChunk = probeChunkRows
		if c.oneCore {
			x.probeChunk = n + 1
		}
		x.kernel = headKernel{simdLevel()}
		if c.kernel > 0 {
			if c.kernel-1 > simdLevel() {
				continue
			}
			x.kernel = headKernel{c.kernel - 1}
		}
		name := fmt.Sprintf("hamming/%d/%d", c.shortlist, c.cands)
		search := func(q []float32) []int64 {
			qc := CodeOf(Quantize(q))
			return x.Nearest(&qc, Filter{}, c.cands)
		}
		if c.estimate {
			name = fmt.Sprintf("estimate/%d/%d/%d", c.shortlist, c.estimated, c.cands)
			if c.probe != 0 {
				name += fmt.Sprintf("/probe-%d", c.probe)
			}
			if c.oneCore {
				name += "/one-core"
			}
			if c.kernel > 0 {
				name += fmt.Sprintf("/kernel-%d", c.kernel-1)
			}
			search = func(q []float32) []int64 {
				return x.NearestVector(q, Filter{}, c.cands, Effort{Shortlist: c.shortlist, Estimated: c.estimated, Probe: c.probe})
			}
		}
		b.Run(name, func(b *testing.B) {
			found := 0
			for qi, q := range queries {
				for _, d := range rescore(q, search(q)) {
					if d <= kth[qi]+1e-9 {
						found++
					}
				}
			}
			i := 0
			cpu := storagetest.ProcessCPU()
			for b.Loop() {
				search(queries[i%len(queries)])
				i++
			}
			b.ReportMetric(float64(storagetest.ProcessCPU()-cpu)/1e6/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(found)/float64(10*len(queries)), "recall@10")
		})
	}
}

// exactKth is each query's k-th smallest cosine distance to the texts'
// vectors, by a scan of every vector (made once, sparse: the hash
// embedder's have a few dozen components set) on every core.
func exactKth(texts []string, queries [][]float32, k int) []float64 {
	norms := make([]float64, len(queries))
	for qi, q := range queries {
		for _, c := range q {
			norms[qi] += float64(c) * float64(c)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	per := make([][][]float64, workers) // per worker, per query, its k best
	var wg sync.WaitGroup
	for w := range workers {
		per[w] = make([][]float64, len(queries))
		wg.Go(func() {
			var idx []int
			for i := w; i < len(texts); i += workers {
				v := embed.HashVector(texts[i])
				idx = idx[:0]
				for j, c := range v {
					if c != 0 {
						idx = append(idx, j)
					}
				}
				var nv float64
				for _, j := range idx {
					nv += float64(v[j]) * float64(v[j])
				}
				for qi, q := range queries {
					var dot float64
					for _, j := range idx {
						dot += float64(q[j]) * float64(v[j])
					}
					best := per[w][qi]
					// As CosineDistance computes it: ties are common.
					d := 1.0
					if nv != 0 && norms[qi] != 0 {
						d = 1 - dot/math.Sqrt(norms[qi]*nv)
					}
					if len(best) < k || d < best[len(best)-1] {
						p, _ := slices.BinarySearch(best, d)
						best = slices.Insert(best, p, d)
						per[w][qi] = best[:min(len(best), k)]
					}
				}
			}
		})
	}
	wg.Wait()
	out := make([]float64, len(queries))
	for qi := range queries {
		var all []float64
		for w := range workers {
			all = append(all, per[w][qi]...)
		}
		slices.Sort(all)
		out[qi] = all[min(k, len(all))-1]
	}
	return out
}

// benchRows is the number of rows a benchmark is to use: env's value, or
// def when env is not set.
func benchRows(b *testing.B, env string, def int) int {
	s := os.Getenv(env)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		b.Fatal(err)
	}
	return n
}
