package storagetest

import (
	"math"
	"math/rand/v2"

	"github.com/ada-chat/ada/core"
)

// RandomUnit is a random direction of core.Dim dimensions, of length 1:
// the vectors the index and search tests and benchmarks store and query.
func RandomUnit(rng *rand.Rand) []float32 {
	v := make([]float32, core.Dim)
	var s float64
	for i := range v {
		x := rng.NormFloat64()
		v[i] = float32(x)
		s += x * x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(s))
	}
	return v
}

// EveryKindOfFloat32 is a vector of core.Dim random finite bit patterns,
// led by a negative zero, the smallest subnormal, the largest float32 and a
// negative subnormal: what an exact round trip (export, import) must keep
// to the bit.
func EveryKindOfFloat32(rng *rand.Rand) []float32 {
	vec := make([]float32, core.Dim)
	for i := range vec {
		vec[i] = math.Float32frombits(rng.Uint32())
		if math.IsNaN(float64(vec[i])) || math.IsInf(float64(vec[i]), 0) {
			vec[i] = float32(i) * 1e-3
		}
	}
	vec[0], vec[1], vec[2], vec[3] = float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, math.MaxFloat32, -1.5e-40
	return vec
}
