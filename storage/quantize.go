package storage

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
	if na == 0 || nb == 0 {
		return 1
	}
	return 1 - dot/math.Sqrt(na*nb)
}

// The binary code of a vector. The sign bits of the raw components would be
// a poor code for the vectors Ada stores: the hash embedder's are sparse
// (most components are zero, so most bits say nothing) and a semantic
// model's share a common offset (so most bits agree for unrelated texts).
// A random rotation first turns every bit into a test against a random
// hyperplane (SimHash), and the Hamming distance between two codes then
// estimates the angle between the vectors, whatever their distribution.
// The rotation is a randomised Hadamard transform, O(n log n): the vector,
// padded to rotSize components, is multiplied by random signs and
// Walsh–Hadamard transformed, rotRounds times. The code has codeBlocks
// independent rotations; more bits make the estimate finer, and fewer
// candidates are needed for the same recall (make bench measures this).
// The signs come from a fixed seed: changing any of this means changing
// documents_vec in the schema and re-quantising every vector.
const (
	rotSize    = 1024 // core.Dim rounded up to a power of two
	rotRounds  = 3
	codeBlocks = 2
	codeBits   = codeBlocks * rotSize // documents_vec.embedding is BIT[2048]
)

var rotSigns = func() (s [codeBlocks][rotRounds][rotSize]float32) {
	x := uint64(0xada5eed)
	for b := range s {
		for r := range s[b] {
			for i := range s[b][r] {
				// splitmix64: a fixed, version-independent sequence.
				x += 0x9e3779b97f4a7c15
				z := (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
				z = (z ^ (z >> 27)) * 0x94d049bb133111eb
				s[b][r][i] = float32(1 - 2*int((z^(z>>31))&1))
			}
		}
	}
	return s
}()

// quantize returns the codeBits-bit code of v.
func quantize(v []float32) []byte {
	code := make([]byte, codeBits/8)
	var a [rotSize]float32
	for b := range codeBlocks {
		clear(a[:])
		copy(a[:], v)
		for r := range rotRounds {
			for i := range a {
				a[i] *= rotSigns[b][r][i]
			}
			hadamard(a[:])
		}
		for i, x := range a {
			if x > 0 {
				j := b*rotSize + i
				code[j/8] |= 1 << (j % 8)
			}
		}
	}
	return code
}

// hadamard is the in-place fast Walsh–Hadamard transform of a power-of-two
// length ≥ 4 (unnormalised: only signs are kept). The first two levels are
// done together, four components at a time.
func hadamard(a []float32) {
	for i := 0; i+4 <= len(a); i += 4 {
		s0, d0 := a[i]+a[i+1], a[i]-a[i+1]
		s1, d1 := a[i+2]+a[i+3], a[i+2]-a[i+3]
		a[i], a[i+1], a[i+2], a[i+3] = s0+s1, d0+d1, s0-s1, d0-d1
	}
	for h := 4; h < len(a); h *= 2 {
		for i := 0; i < len(a); i += 2 * h {
			x, y := a[i:i+h], a[i+h:i+2*h]
			y = y[:len(x)]
			for j := range x {
				x[j], y[j] = x[j]+y[j], x[j]-y[j]
			}
		}
	}
}
