package storage

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
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
		a := randomUnit(rng)
		b := randomUnit(rng)
		for i := range b {
			b[i] = a[i] + b[i]*float32(rng.Float64())
		}
		pairs = append(pairs, [2][]float32{a, b})
	}
	for i, p := range pairs {
		angle := math.Acos(1-CosineDistance(p[0], p[1])) / math.Pi
		ca, cb := quantize(p[0]), quantize(p[1])
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

// Every document is found by its own vector, and after a reindex rewrote
// the codes.
func TestSearchFindsEveryDocument(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	var docs []core.Document
	for i := range 16 {
		docs = append(docs, memoryDoc(fmt.Sprintf("memory number %d about topic %d", i, i*7), core.ScopeGlobal, 3))
	}
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	check := func() {
		t.Helper()
		for _, d := range docs {
			hits, err := db.Search(ctx, core.VectorQuery{Filter: core.Filter{Type: core.DocMemory}, Vector: d.Embedding, K: 1})
			if err != nil || len(hits) != 1 || hits[0].ID != d.ID || hits[0].Distance > 1e-6 {
				t.Fatalf("search for %q: %+v, %v", d.Text, hits, err)
			}
		}
	}
	check()
	if err := db.Reindex(ctx, embed.Hash{}, 5, nil); err != nil {
		t.Fatal(err)
	}
	check()
}

func TestCandidateCount(t *testing.T) {
	for _, tc := range []struct{ k, want int }{{1, minCandidates}, {10, minCandidates}, {80, 160}, {3000, 6000}} {
		if got := candidateCount(tc.k); got != tc.want {
			t.Errorf("candidateCount(%d) = %d, want %d", tc.k, got, tc.want)
		}
	}
}

func BenchmarkQuantize(b *testing.B) {
	v := embed.HashVector("the quick brown fox jumps over the lazy dog")
	for _, f := range []struct {
		name string
		fn   func([]float32) []byte
	}{{"C", quantize}, {"Go", quantizeGo}} {
		b.Run(f.name, func(b *testing.B) {
			for b.Loop() {
				f.fn(v)
			}
		})
	}
}
