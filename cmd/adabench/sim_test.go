package main

import (
	"math/bits"
	"sort"
	"testing"
)

type quantizer struct {
	name string
	code func(v []float32) []uint64
}

func signCode(thr []float32) func(v []float32) []uint64 {
	return func(v []float32) []uint64 {
		c := make([]uint64, (len(v)+63)/64)
		for i, x := range v {
			t := float32(0)
			if thr != nil {
				t = thr[i]
			}
			if x > t {
				c[i/64] |= 1 << (i % 64)
			}
		}
		return c
	}
}

// ternary: two bits per dim, thermometer around center +- t.
func ternCode(center []float32, t []float32) func(v []float32) []uint64 {
	return func(v []float32) []uint64 {
		n := len(v)
		c := make([]uint64, (2*n+63)/64)
		for i, x := range v {
			m := float32(0)
			if center != nil {
				m = center[i]
			}
			if x > m-t[i] {
				c[i/64] |= 1 << (i % 64)
			}
			if x > m+t[i] {
				j := n + i
				c[j/64] |= 1 << (j % 64)
			}
		}
		return c
	}
}

func stats(vecs [][]float32) (mean, absdev []float32) {
	mean = make([]float32, len(vecs[0]))
	absdev = make([]float32, len(vecs[0]))
	for _, v := range vecs {
		for i, x := range v {
			mean[i] += x / float32(len(vecs))
		}
	}
	for _, v := range vecs {
		for i, x := range v {
			d := x - mean[i]
			if d < 0 {
				d = -d
			}
			absdev[i] += d / float32(len(vecs))
		}
	}
	return
}

func hamming(a, b []uint64) int {
	s := 0
	for i := range a {
		s += bits.OnesCount64(a[i] ^ b[i])
	}
	return s
}

func TestSim(t *testing.T) {
	const n, nq, k = 100000, 100, 10
	for _, d := range []dataset{sentences(n, nq, 7), clusters(n, nq, 7)} {
		kth := exactTopK(d.vecs, d.queries, k, func(int) bool { return true })
		mean, dev := stats(d.vecs)
		half := make([]float32, len(dev))
		for i := range dev {
			half[i] = dev[i] * 0.5
		}
		zero := make([]float32, len(dev))
		small := make([]float32, len(dev))
		for i := range small {
			small[i] = 1e-6
		}
		qs := []quantizer{
			{"sign>0", signCode(nil)},
			{"sign>mean", signCode(mean)},
			{"tern0 ±1e-6", ternCode(zero, small)},
			{"tern mean±0.5dev", ternCode(mean, half)},
			{"tern mean±dev", ternCode(mean, dev)},
		}
		for _, q := range qs {
			codes := make([][]uint64, n)
			for i, v := range d.vecs {
				codes[i] = q.code(v)
			}
			for _, cands := range []int{20, 40, 60, 80, 100, 200} {
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
