package main

import (
	"math"
	"sort"
	"testing"
)

func TestStats(t *testing.T) {
	for _, d := range []dataset{clusters(10000, 50, 3), sentences(10000, 50, 3)} {
		var s, s2 float64
		n := 0
		for i := 0; i < 2000; i++ {
			c := dot(d.vecs[i], d.vecs[i+5000])
			s += c
			s2 += c * c
			n++
		}
		m := s / float64(n)
		t.Logf("%s: random pair cos mean %.3f sd %.3f", d.name, m, math.Sqrt(s2/float64(n)-m*m))
		var nn1, nn10, nn100 float64
		for _, q := range d.queries {
			cs := make([]float64, len(d.vecs))
			for i, v := range d.vecs {
				cs[i] = dot(q, v)
			}
			sort.Sort(sort.Reverse(sort.Float64Slice(cs)))
			nn1 += cs[0] / 50
			nn10 += cs[9] / 50
			nn100 += cs[99] / 50
		}
		t.Logf("  query nn cos: 1st %.3f 10th %.3f 100th %.3f", nn1, nn10, nn100)
	}
}
