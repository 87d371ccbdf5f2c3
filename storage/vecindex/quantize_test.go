package vecindex

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
)

// The codes are stored (documents_codes) and compared with the codes of new
// queries: Quantize must give, to the bit, what the textbook version below
// (one Walsh–Hadamard level at a time, a branch per bit) gives.
func TestQuantizeMatchesTheReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	vecs := [][]float32{
		make([]float32, 768), // zero: every component stays 0, no bit set
		embed.HashVector("Sam drinks strong black coffee every morning"),
		embed.HashVector("a"),
	}
	for range 200 {
		vecs = append(vecs, storagetest.RandomUnit(rng))
	}
	// Small integers make exact zeros after the transforms.
	for range 50 {
		v := make([]float32, 768)
		for i := range 3 {
			v[rng.IntN(len(v))] = float32(1 - 2*(i%2))
		}
		vecs = append(vecs, v)
	}
	for i, v := range vecs {
		want := quantizeReference(v)
		if got := Quantize(v); !bytes.Equal(got, want) {
			t.Fatalf("vector %d: code differs from the reference", i)
		}
		if got := quantizeGo(v); !bytes.Equal(got, want) {
			t.Fatalf("vector %d: the Go version's code differs from the reference", i)
		}
	}
}

func TestPositive(t *testing.T) {
	for _, x := range []float32{0, float32(math.Copysign(0, -1)), 1, -1, 1e-45, -1e-45, float32(math.Inf(1)),
		float32(math.Inf(-1)), float32(math.NaN()), -float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32} {
		want := uint32(0)
		if x > 0 {
			want = 1
		}
		if got := positive(x); got != want {
			t.Errorf("positive(%v) = %d, want %d", x, got, want)
		}
	}
}

func quantizeReference(v []float32) []byte {
	code := make([]byte, CodeBytes)
	var a [rotSize]float32
	for b := range codeBlocks {
		clear(a[:])
		copy(a[:], v)
		for r := range rotRounds {
			for i := range a {
				a[i] *= rotSigns[b][r][i]
			}
			hadamardReference(a[:])
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

// hadamardReference is the in-place fast Walsh–Hadamard transform of a
// power-of-two length ≥ 4 (unnormalised: only signs are kept). The first two
// levels are done together, four components at a time.
func hadamardReference(a []float32) {
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
