package main

import (
	"sort"
	"testing"
)

func TestSim2(t *testing.T) {
	const n, nq, k = 100000, 20, 10
	d := sentences(n, nq, 7)
	for qi, qv := range d.queries {
		ds := make([]float64, n)
		for i, v := range d.vecs {
			ds[i] = 1 - dot(qv, v)
		}
		sort.Float64s(ds)
		t.Logf("q%d: d1 %.3f d5 %.3f d10 %.3f d20 %.3f d50 %.3f d100 %.3f d1000 %.3f", qi, ds[0], ds[4], ds[9], ds[19], ds[49], ds[99], ds[999])
	}
}
