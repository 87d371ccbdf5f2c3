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
// re-quantising every stored code (documents_codes).
const (
	rotSize    = 1024 // core.Dim rounded up to a power of two
	rotRounds  = 3
	codeBlocks = 2
	codeBits   = codeBlocks * rotSize // documents_codes.code holds codeBits/8 bytes
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

// quantize returns the codeBits-bit code of v (in C: quantize_c.go).
func quantize(v []float32) []byte { return quantizeC(v) }
