package main

import (
	"math/rand/v2"
	"sort"
	"testing"
)

func fwht(a []float32) {
	for h := 1; h < len(a); h *= 2 {
		for i := 0; i < len(a); i += 2 * h {
			for j := i; j < i+h; j++ {
				x, y := a[j], a[j+h]
				a[j], a[j+h] = x+y, x-y
			}
		}
	}
}

// simhash: nblocks independent randomized Hadamard rotations of v padded to 1024.
func simhash(nblocks, rounds int) func(v []float32) []uint64 {
	rng := rand.New(rand.NewPCG(42, 42))
	signs := make([][][]float32, nblocks)
	for b := range signs {
		signs[b] = make([][]float32, rounds)
		for r := range signs[b] {
			s := make([]float32, 1024)
			for i := range s {
				s[i] = float32(1 - 2*rng.IntN(2))
			}
			signs[b][r] = s
		}
	}
	return func(v []float32) []uint64 {
		c := make([]uint64, nblocks*16)
		a := make([]float32, 1024)
		for b := range nblocks {
			clear(a)
			copy(a, v)
			for r := range rounds {
				for i := range a {
					a[i] *= signs[b][r][i]
				}
				fwht(a)
			}
			for i, x := range a {
				if x > 0 {
					j := b*1024 + i
					c[j/64] |= 1 << (j % 64)
				}
			}
		}
		return c
	}
}

func TestSim3(t *testing.T) {
	const n, nq, k = 100000, 100, 10
	for _, d := range []dataset{sentences(n, nq, 7), clusters(n, nq, 7)} {
		kth := exactTopK(d.vecs, d.queries, k, func(int) bool { return true })
		qs := []quantizer{
			{"rot1024 r2", simhash(1, 2)},
			{"rot1024 r3", simhash(1, 3)},
			{"rot2048 r3", simhash(2, 3)},
		}
		for _, q := range qs {
			codes := make([][]uint64, n)
			for i, v := range d.vecs {
				codes[i] = q.code(v)
			}
			for _, cands := range []int{40, 80, 100, 150, 200, 400} {
				var rec float64
				for qi, qv := range d.queries {
					qc := q.code(qv)
					idx := make([]int, n)
					hd := make([]int, n)
					for i := range idx {
						idx[i] = i
						hd[i] = hamming(qc, codes[i])
					}
					sort.SliceStable(idx, func(a, b int) bool { return hd[idx[a]] < hd[idx[b]] })
					top := idx[:cands]
					ds := make([]float64, len(top))
					for j, i := range top {
						ds[j] = 1 - dot(qv, d.vecs[i])
					}
					sort.Float64s(ds)
					hit := 0
					for _, x := range ds[:k] {
						if x <= kth[qi]+1e-6 {
							hit++
						}
					}
					rec += float64(hit) / k
				}
				t.Logf("%-26s %-18s cands %4d recall %.3f", d.name, q.name, cands, rec/nq)
			}
		}
	}
}
