package embed

import (
	"context"
	"math"
	"testing"

	"github.com/ada-chat/ada/core"
)

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestHashVectorIsNormalisedAndDeterministic(t *testing.T) {
	a := HashVector("The quick brown fox")
	b := HashVector("the QUICK brown fox!")
	if len(a) != core.Dim {
		t.Fatalf("len = %d, want %d", len(a), core.Dim)
	}
	if got := cosine(a, a); math.Abs(got-1) > 1e-5 {
		t.Fatalf("norm² = %v, want 1", got)
	}
	if got := cosine(a, b); math.Abs(got-1) > 1e-5 {
		t.Fatalf("case and punctuation changed the vector: cos = %v", got)
	}
	if zero := HashVector("  !! "); cosine(zero, zero) != 0 {
		t.Fatalf("a text without words must give the zero vector")
	}
}

func TestHashSimilarityOrdersByOverlap(t *testing.T) {
	q := HashVector("what coffee does Sam like")
	tests := []struct {
		closer, farther string
	}{
		{"Sam likes strong black coffee", "The train leaves at nine"},
		{"coffee beans from Ethiopia", "Berlin is the capital of Germany"},
	}
	for _, tc := range tests {
		near, far := cosine(q, HashVector(tc.closer)), cosine(q, HashVector(tc.farther))
		if near <= far {
			t.Errorf("cos(%q)=%.3f should exceed cos(%q)=%.3f", tc.closer, near, tc.farther, far)
		}
	}
}

func TestHashEmbedHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Hash{}).Embed(ctx, []string{"x"}); err == nil {
		t.Fatal("want an error from a cancelled context")
	}
}
