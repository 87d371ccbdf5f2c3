package vecindex

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
)

// The Go version of Quantize: production quantises in C (quantize_c.go),
// which GCC vectorises. This one is kept beside the textbook reference in
// quantize_test.go to prove that all three give the same codes to the bit,
// and for BenchmarkQuantize's comparison.

// quantizeGo is Quantize in Go, the same codes, several times slower than
// the C version (BenchmarkQuantize).
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
// bit (the stored codes depend on it).
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

// TestRotateMatchesTheGoVersion: the C rotations are the Go version's to
// the bit, not only in sign: the query's rotations are the search's
// estimate (estimate.go), so a change of the C code that moved a value
// would move answers.
func TestRotateMatchesTheGoVersion(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	vecs := [][]float32{make([]float32, 768), embed.HashVector("Sam drinks strong black coffee every morning")}
	for range 100 {
		vecs = append(vecs, storagetest.RandomUnit(rng))
	}
	for i, v := range vecs {
		var got [codeBits]float32
		rotateC(v, &got)
		for b := range codeBlocks {
			var a [rotSize]float32
			copy(a[:], v)
			for r := range rotRounds {
				for j := range a {
					a[j] *= rotSigns[b][r][j]
				}
				hadamard(a[:])
			}
			for j, x := range a {
				if math.Float32bits(got[b*rotSize+j]) != math.Float32bits(x) {
					t.Fatalf("vector %d, block %d, component %d: C %v, Go %v", i, b, j, got[b*rotSize+j], x)
				}
			}
		}
	}
}
