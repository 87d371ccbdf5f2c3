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

// quantizeGo is quantize in Go, the same codes (about 20 µs a code, five
// times the C version's).
func quantizeGo(v []float32) []byte {
	code := make([]byte, codeBits/8)
	var a [rotSize]float32
	for b := range codeBlocks {
		clear(a[:])
		copy(a[:], v)
		for r := range rotRounds {
			s := &rotSigns[b][r]
			for i := range a {
				a[i] *= s[i]
			}
			hadamard(a[:])
		}
		// One byte of the code per eight components, without a branch
		// per bit (the signs are random: a branch mispredicts half the
		// time, and this loop cost as much as the transforms).
		out := code[b*rotSize/8 : (b+1)*rotSize/8]
		for i := range out {
			var c uint32
			for j, x := range a[8*i : 8*i+8] {
				c |= positive(x) << j
			}
			out[i] = byte(c)
		}
	}
	return code
}

// positive is 1 if x > 0 and 0 otherwise (NaN included), computed from
// x's bits: the sign bit is clear, x is not ±0, and x is not NaN.
func positive(x float32) uint32 {
	u := math.Float32bits(x)
	notNeg := ^u >> 31
	nonZero := (u | -u) >> 31
	notNaN := ^((0x7f800000 - u&0x7fffffff) >> 31)
	return notNeg & nonZero & notNaN & 1
}

// hadamard is the in-place fast Walsh–Hadamard transform of a power-of-two
// length ≥ 4 (unnormalised: only signs are kept). The levels are done two
// at a time (radix 4), so that each component is read and written half as
// often; every component goes through the same additions, in the same
// order, as in the textbook transform, so the result is the same to the
// bit (the codes in documents_codes depend on it).
func hadamard(a []float32) {
	n := len(a)
	h := 1
	for ; 4*h <= n; h *= 4 {
		for i := 0; i < n; i += 4 * h {
			x0, x1, x2, x3 := a[i:i+h], a[i+h:i+2*h], a[i+2*h:i+3*h], a[i+3*h:i+4*h]
			x1, x2, x3 = x1[:len(x0)], x2[:len(x0)], x3[:len(x0)]
			for j := range x0 {
				s0, d0 := x0[j]+x1[j], x0[j]-x1[j]
				s1, d1 := x2[j]+x3[j], x2[j]-x3[j]
				x0[j], x1[j], x2[j], x3[j] = s0+s1, d0+d1, s0-s1, d0-d1
			}
		}
	}
	if 2*h == n { // an odd number of levels: the last one alone
		x, y := a[:h], a[h:2*h]
		y = y[:len(x)]
		for j := range x {
			x[j], y[j] = x[j]+y[j], x[j]-y[j]
		}
	}
}
