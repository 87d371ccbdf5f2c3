package vecindex

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ada-chat/ada/core"
)

// The C kernel gives the Go loop's distances and histogram, for runs of
// every length modulo its eight rows at a time, with and without counting.
func TestHeadKernelMatchesTheGoLoop(t *testing.T) {
	if !hasVPOPCNT() {
		t.Skip("this CPU has no AVX-512 popcount: the Go loop is the only kernel")
	}
	rng := rand.New(rand.NewPCG(31, 32))
	var q Code
	for w := range q {
		q[w] = rng.Uint64()
	}
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
		headKernel{vpopcnt: true}.dists(hs, &q, got, &gotHist)
		if !slices.Equal(got, want) || gotHist != wantHist {
			t.Fatalf("%d rows: the kernel gave %v, the Go loop %v", n, got, want)
		}
		clear(got)
		headKernel{vpopcnt: true}.dists(hs, &q, got, nil)
		if !slices.Equal(got, want) {
			t.Fatalf("%d rows, not counted: the kernel gave %v, the Go loop %v", n, got, want)
		}
	}
}

// A search gives the same rows with the C kernel as with the Go loop:
// through an inverted file (unfiltered, and with scopes checked while its
// lists are read) and by a scan of a smaller segment.
func TestSearchesWithTheKernelMatchTheGoLoop(t *testing.T) {
	if !hasVPOPCNT() {
		t.Skip("this CPU has no AVX-512 popcount: the Go loop is the only kernel")
	}
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
	for range 20 {
		v := gaussian(rng, 1)
		qc := CodeOf(Quantize(v))
		for _, f := range filters {
			x.kernel = headKernel{}
			wantCodes, wantVec := x.Nearest(&qc, f, 60), x.NearestVector(v, f, 60, Effort{Shortlist: 600, Estimated: 200})
			x.kernel = headKernel{vpopcnt: true}
			gotCodes, gotVec := x.Nearest(&qc, f, 60), x.NearestVector(v, f, 60, Effort{Shortlist: 600, Estimated: 200})
			if len(wantCodes) == 0 || !slices.Equal(gotCodes, wantCodes) || !slices.Equal(gotVec, wantVec) {
				t.Fatalf("%+v: the kernel found %v and %v, the Go loop %v and %v", f, gotCodes, gotVec, wantCodes, wantVec)
			}
		}
	}
}
