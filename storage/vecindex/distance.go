package vecindex

import "math"

// CosineDistance is 1 − cosine similarity; 1 when either vector is zero.
func CosineDistance(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	return cosineOf(dot, na, nb)
}

func cosineOf(dot, na, nb float64) float64 {
	if na == 0 || nb == 0 {
		return 1
	}
	return 1 - dot/math.Sqrt(na*nb)
}

// CosineDistances sets out[j] to CosineDistance(a, bs[j]), bit for bit:
// each sum is added up in the same order. Four vectors go through one
// loop, so that their sums, each a chain of dependent additions that the
// processor cannot overlap, run side by side: a search's rescoring of its
// candidates took a third of a 1k store's vector search one at a time
// (pprof).
func CosineDistances(a []float32, bs [][]float32, out []float64) {
	var na float64
	for _, v := range a {
		x := float64(v)
		na += x * x
	}
	j := 0
	for ; j+4 <= len(bs); j += 4 {
		b0, b1, b2, b3 := bs[j][:len(a)], bs[j+1][:len(a)], bs[j+2][:len(a)], bs[j+3][:len(a)]
		var d0, d1, d2, d3, n0, n1, n2, n3 float64
		for i, v := range a {
			x := float64(v)
			y0, y1, y2, y3 := float64(b0[i]), float64(b1[i]), float64(b2[i]), float64(b3[i])
			d0 += x * y0
			d1 += x * y1
			d2 += x * y2
			d3 += x * y3
			n0 += y0 * y0
			n1 += y1 * y1
			n2 += y2 * y2
			n3 += y3 * y3
		}
		out[j], out[j+1], out[j+2], out[j+3] = cosineOf(d0, na, n0), cosineOf(d1, na, n1), cosineOf(d2, na, n2), cosineOf(d3, na, n3)
	}
	for ; j < len(bs); j++ {
		out[j] = CosineDistance(a, bs[j])
	}
}
