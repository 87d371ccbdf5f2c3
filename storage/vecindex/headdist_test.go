package vecindex

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ada-chat/ada/core"
)

// simdKernels are the C kernels this CPU runs, to be compared with the Go
// loop (headKernel{}).
func simdKernels(t *testing.T) []headKernel {
	var ks []headKernel
	for level := 1; level <= simdLevel(); level++ {
		ks = append(ks, headKernel{level})
	}
	if len(ks) == 0 {
		t.Skip("this CPU has neither AVX2 nor AVX-512: the Go loop is the only kernel")
	}
	return ks
}

// The C kernels give the Go loop's distances and histogram, for runs of
// every length modulo their rows at a time, with and without counting.
func TestHeadKernelsMatchTheGoLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	var q Code
	for w := range q {
		q[w] = rng.Uint64()
	}
	for _, k := range simdKernels(t) {
		for n := range 40 {
			hs := make([][headWords]uint64, n)
			for i := range hs {
				for w := range hs[i] {
					hs[i][w] = rng.Uint64()
				}
				if i%5 == 0 { // distances at both ends of the range
					hs[i] = [headWords]uint64(q[:headWords])
				} else if i%5 == 1 {
					for w := range hs[i] {
						hs[i][w] = ^q[w]
					}
				}
			}
			want, got := make([]uint16, n), make([]uint16, n)
			var wantHist, gotHist [headWords*64 + 1]int
			headKernel{}.dists(hs, &q, want, &wantHist)
			k.dists(hs, &q, got, &gotHist)
			if !slices.Equal(got, want) || gotHist != wantHist {
				t.Fatalf("level %d, %d rows: the kernel gave %v, the Go loop %v", k.level, n, got, want)
			}
			clear(got)
			k.dists(hs, &q, got, nil)
			if !slices.Equal(got, want) {
				t.Fatalf("level %d, %d rows, not counted: the kernel gave %v, the Go loop %v", k.level, n, got, want)
			}
		}
	}
}

// The C kernels keep the rows the Go loop keeps, at every limit.
func TestBelowMatchesTheGoLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 36))
	for _, k := range simdKernels(t) {
		for n := range 100 {
			d := make([]uint16, n)
			for i := range d {
				d[i] = uint16(rng.IntN(headWords*64 + 1))
			}
			for _, limit := range []uint16{0, 1, 200, 256, 300, headWords * 64} {
				want := headKernel{}.below(d, limit, make([]int32, n))
				got := k.below(d, limit, make([]int32, n))
				if !slices.Equal(got, want) {
					t.Fatalf("level %d, %d distances up to %d: the kernel kept %v, the Go loop %v", k.level, n, limit, got, want)
				}
			}
		}
	}
}

// A search gives the same rows with the C kernels as with the Go loop:
// through an inverted file (unfiltered, and with scopes checked while its
// lists are read) and by a scan of a smaller segment.
func TestSearchesWithTheKernelsMatchTheGoLoop(t *testing.T) {
	kernels := simdKernels(t)
	rng := rand.New(rand.NewPCG(33, 34))
	const n = 4000
	codes := topicVectors(rng, n, 200)
	x := smallIndex()
	var ops []Op
	for i := range codes {
		scope := core.ScopeGlobal
		if i%10 == 3 {
			scope = "entity:tenth"
		}
		ops = append(ops, Op{Rowid: int64(i), Type: string(core.DocMemory), Scope: scope, Code: codes[i]})
		if i%4 == 0 { // a segment too small for an inverted file
			ops = append(ops, Op{Rowid: int64(n + i), Type: string(core.DocTurn), Scope: core.ScopeGlobal, Code: codes[i]})
		}
	}
	x.Apply(ops)
	x.trainers.Wait()
	x.mu.RLock()
	ivf := x.segs[0].ivf != nil
	x.mu.RUnlock()
	if !ivf {
		t.Fatal("the test does not reach the inverted file")
	}
	filters := []Filter{{}, {Type: string(core.DocMemory)}, {Type: string(core.DocMemory), Scopes: []string{core.ScopeGlobal}}, {Type: string(core.DocTurn)}}
	search := func(k headKernel, qc *Code, v []float32, f Filter) string {
		x.kernel = k
		return fmt.Sprint(x.Nearest(qc, f, 60), x.NearestVector(v, f, 60, Effort{Shortlist: 600, Estimated: 200}))
	}
	for range 20 {
		v := gaussian(rng, 1)
		qc := CodeOf(Quantize(v))
		for _, f := range filters {
			want := search(headKernel{}, &qc, v, f)
			for _, k := range kernels {
				if got := search(k, &qc, v, f); got != want {
					t.Fatalf("%+v: the kernel of level %d found %v, the Go loop %v", f, k.level, got, want)
				}
			}
		}
	}
}

// BenchmarkHeadKernels times each kernel this CPU runs on 4,096 heads
// (256 KiB, in the caches), counting the histogram as a probe does.
func BenchmarkHeadKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	hs := randomHeads(rng, 4096)
	var q Code
	for w := range q {
		q[w] = rng.Uint64()
	}
	d := make([]uint16, len(hs))
	var hist [headWords*64 + 1]int
	for level := 0; level <= simdLevel(); level++ {
		b.Run(fmt.Sprintf("level-%d", level), func(b *testing.B) {
			for b.Loop() {
				headKernel{level}.dists(hs, &q, d, &hist)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(hs)), "ns/head")
		})
	}
}

// randomHeads is n heads of random bits.
func randomHeads(rng *rand.Rand, n int) [][headWords]uint64 {
	hs := make([][headWords]uint64, n)
	for i := range hs {
		for w := range hs[i] {
			hs[i][w] = rng.Uint64()
		}
	}
	return hs
}
