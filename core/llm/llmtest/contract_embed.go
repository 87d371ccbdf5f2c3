package llmtest

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
)

// RunEmbedderContract checks what core.Embedder promises against the fake:
// core.Dim unit vectors in input order, deterministic per text, and clear
// KindUpstream errors for a wrong size, a failing or an absent backend.
// The constructor is given Model "embed-m".
func RunEmbedderContract(t *testing.T, newEmbedder func(Config) core.Embedder) {
	const model = "embed-m"
	t.Run("unit vectors in order", func(t *testing.T) {
		srv := New(t)
		emb := newEmbedder(Config{BaseURL: srv.URL(), APIKey: testKey, Model: model})
		texts := []string{"alpha", "beta", "alpha"}
		vecs, err := emb.Embed(testCtx(t), texts)
		if err != nil {
			t.Fatal(err)
		}
		if len(vecs) != len(texts) {
			t.Fatalf("got %d vectors for %d texts", len(vecs), len(texts))
		}
		for i, v := range vecs {
			if len(v) != core.Dim {
				t.Fatalf("vector %d has %d values", i, len(v))
			}
			if n := norm(v); math.Abs(n-1) > 1e-5 {
				t.Errorf("vector %d has norm %v", i, n)
			}
			if cos := cosine(v, Vector(texts[i], core.Dim)); math.Abs(cos-1) > 1e-5 {
				t.Errorf("vector %d is not the fake's vector for %q (cosine %v)", i, texts[i], cos)
			}
		}
		if !slices.Equal(vecs[0], vecs[2]) {
			t.Error("equal texts gave different vectors")
		}
		reqs := srv.Requests()
		if len(reqs) != 1 || reqs[0].Model != model || !slices.Equal(reqs[0].Input, texts) {
			t.Errorf("fake received %+v", reqs)
		}
		if !strings.HasSuffix(emb.Name(), ":"+model) {
			t.Errorf("Name() = %q, want backend:%s", emb.Name(), model)
		}
	})
	t.Run("no texts, no request", func(t *testing.T) {
		srv := New(t)
		vecs, err := newEmbedder(Config{BaseURL: srv.URL(), Model: model}).Embed(testCtx(t), nil)
		if err != nil || len(vecs) != 0 || srv.Count() != 0 {
			t.Errorf("vecs %v, err %v, requests %d", vecs, err, srv.Count())
		}
	})
	t.Run("wrong dimension", func(t *testing.T) {
		srv := New(t)
		srv.SetEmbed(Embed{Dim: 384})
		_, err := newEmbedder(Config{BaseURL: srv.URL(), APIKey: testKey, Model: model}).Embed(testCtx(t), []string{"x"})
		wantErr(t, err, core.KindUpstream, srv.URL(), model, "384", "768")
	})
	t.Run("HTTP 500", func(t *testing.T) {
		srv := New(t)
		srv.SetEmbed(Embed{Status: 500})
		_, err := newEmbedder(Config{BaseURL: srv.URL(), APIKey: testKey, Model: model}).Embed(testCtx(t), []string{"x"})
		wantErr(t, err, core.KindUpstream, srv.URL(), "500")
	})
	t.Run("server down", func(t *testing.T) {
		base := ClosedURL(t)
		_, err := newEmbedder(Config{BaseURL: base, APIKey: testKey, Model: model}).Embed(testCtx(t), []string{"x"})
		wantErr(t, err, core.KindUpstream, base, "connection refused")
	})
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func cosine(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot / (norm(a) * norm(b))
}
