package vecindex

import (
	"math"
	"math/rand/v2"
	"testing"
)

// CosineDistances must give CosineDistance's answers to the last bit: a
// search's ranking, ties included, must not depend on which one scored it.
func TestCosineDistancesAsOneByOne(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vec := func(zero bool) []float32 {
		v := make([]float32, 768)
		if !zero {
			for i := range v {
				v[i] = float32(r.NormFloat64())
			}
		}
		return v
	}
	for _, zeroQuery := range []bool{false, true} {
		a := vec(zeroQuery)
		for n := range 11 {
			bs := make([][]float32, n)
			for j := range bs {
				bs[j] = vec(j == 5)
			}
			out := make([]float64, n)
			CosineDistances(a, bs, out)
			for j, b := range bs {
				if want := CosineDistance(a, b); math.Float64bits(out[j]) != math.Float64bits(want) {
					t.Fatalf("zero query %v, %d vectors: distance %d is %v, one by one %v", zeroQuery, n, j, out[j], want)
				}
			}
		}
	}
}

func BenchmarkCosineDistances(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	bs := make([][]float32, 80)
	a := make([]float32, 768)
	for j := range bs {
		bs[j] = make([]float32, 768)
		for i := range a {
			a[i], bs[j][i] = float32(r.NormFloat64()), float32(r.NormFloat64())
		}
	}
	out := make([]float64, len(bs))
	b.Run("one-by-one", func(b *testing.B) {
		for b.Loop() {
			for j, v := range bs {
				out[j] = CosineDistance(a, v)
			}
		}
	})
	b.Run("four-at-once", func(b *testing.B) {
		for b.Loop() {
			CosineDistances(a, bs, out)
		}
	})
}
