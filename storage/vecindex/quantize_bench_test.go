package vecindex

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
)

func TestHadamardMatchesDefinition(t *testing.T) {
	a := make([]float32, 16)
	for i := range a {
		a[i] = float32(i*i%7) - 3
	}
	want := make([]float32, len(a))
	for i := range want {
		for j, x := range a {
			if bits.OnesCount(uint(i&j))%2 == 1 {
				x = -x
			}
			want[i] += x
		}
	}
	hadamard(a)
	for i := range a {
		if a[i] != want[i] {
			t.Fatalf("component %d: %v, want %v", i, a[i], want[i])
		}
	}
}

// The codes' Hamming distance must estimate the angle between the vectors
// (SimHash: P(bit differs) = angle/π), for dense vectors and for the hash
// embedder's sparse ones alike.
func TestCodeDistanceEstimatesTheAngle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pairs := [][2][]float32{
		{embed.HashVector("Sam drinks strong black coffee every morning"), embed.HashVector("what coffee does Sam like")},
		{embed.HashVector("the office closes at six on Fridays"), embed.HashVector("Sam drinks strong black coffee")},
		{embed.HashVector("project alpha deadline is in March"), embed.HashVector("project alpha deadline moved to April")},
	}
	for range 5 {
		a := storagetest.RandomUnit(rng)
		b := storagetest.RandomUnit(rng)
		for i := range b {
			b[i] = a[i] + b[i]*float32(rng.Float64())
		}
		pairs = append(pairs, [2][]float32{a, b})
	}
	for i, p := range pairs {
		angle := math.Acos(1-CosineDistance(p[0], p[1])) / math.Pi
		ca, cb := Quantize(p[0]), Quantize(p[1])
		diff := 0
		for j := range ca {
			diff += bits.OnesCount8(ca[j] ^ cb[j])
		}
		got := float64(diff) / codeBits
		// Four standard deviations of a binomial over codeBits bits.
		if tol := 4 * math.Sqrt(angle*(1-angle)/codeBits); math.Abs(got-angle) > tol+0.01 {
			t.Errorf("pair %d: code distance %.3f, angle/π %.3f", i, got, angle)
		}
	}
}

func BenchmarkQuantize(b *testing.B) {
	v := embed.HashVector("the quick brown fox jumps over the lazy dog")
	for _, f := range []struct {
		name string
		fn   func([]float32) []byte
	}{{"C", Quantize}, {"Go", quantizeGo}} {
		b.Run(f.name, func(b *testing.B) {
			for b.Loop() {
				f.fn(v)
			}
		})
	}
}
