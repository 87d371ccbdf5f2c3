package storage

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

func tuneSentences(n, nq int) (vecs, qs [][]float32) {
	rng := rand.New(rand.NewPCG(1, 1))
	vocab := make([]string, 4000)
	syll := []string{"ka", "lo", "mi", "ren", "to", "sa", "vel", "du", "pra", "ne", "qui", "bor", "ti", "fa", "zen", "os", "gri", "mu", "an", "el"}
	for i := range vocab {
		var b strings.Builder
		for range 2 + rng.IntN(3) {
			b.WriteString(syll[rng.IntN(len(syll))])
		}
		vocab[i] = b.String()
	}
	zipf := rand.NewZipf(rng, 1.07, 2, 3999)
	sent := func(a, b int) []string {
		w := make([]string, a+rng.IntN(b-a+1))
		for i := range w {
			w[i] = vocab[zipf.Uint64()]
		}
		return w
	}
	var texts []string
	for range n {
		t := strings.Join(sent(6, 18), " ")
		texts = append(texts, t)
		vecs = append(vecs, embed.HashVector(t))
	}
	for i := range nq {
		var w []string
		if i%2 == 0 {
			w = strings.Fields(texts[rng.IntN(n)])
			for range 1 + len(w)/5 {
				j := rng.IntN(len(w))
				if rng.IntN(2) == 0 && len(w) > 3 {
					w = append(w[:j], w[j+1:]...)
				} else {
					w[j] = vocab[zipf.Uint64()]
				}
			}
		} else {
			w = sent(3, 10)
		}
		qs = append(qs, embed.HashVector(strings.Join(w, " ")))
	}
	return
}

func tuneClusters(n, nq int) (vecs, qs [][]float32) {
	rng := rand.New(rand.NewPCG(1, 2))
	g := func(sd float64) []float64 {
		v := make([]float64, core.Dim)
		for i := range v {
			v[i] = rng.NormFloat64() * sd
		}
		return v
	}
	off := g(0.55)
	cs := make([][]float64, 2000)
	for i := range cs {
		cs[i] = g(0.55)
		for j := range off {
			cs[i][j] += off[j]
		}
	}
	pt := func(base []float64, sd float64) []float32 {
		v := g(sd)
		var s float64
		for j := range v {
			v[j] += base[j]
			s += v[j] * v[j]
		}
		out := make([]float32, len(v))
		for j := range v {
			out[j] = float32(v[j] / math.Sqrt(s))
		}
		return out
	}
	for range n {
		vecs = append(vecs, pt(cs[rng.IntN(len(cs))], 0.6))
	}
	for i := range nq {
		if i%2 == 0 {
			b := vecs[rng.IntN(n)]
			f := make([]float64, core.Dim)
			for j := range f {
				f[j] = float64(b[j])
			}
			qs = append(qs, pt(f, 0.6/math.Sqrt(core.Dim)))
		} else {
			qs = append(qs, pt(cs[rng.IntN(len(cs))], 0.6))
		}
	}
	return
}

func TestTuneSweep(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TUNE_N"))
	if n == 0 {
		t.Skip("TUNE_N not set")
	}
	const nq, k = 100, 10
	ctx := context.Background()
	for _, ds := range []string{"sentences", "clusters"} {
		var vecs, qs [][]float32
		if ds == "sentences" {
			vecs, qs = tuneSentences(n, nq)
		} else {
			vecs, qs = tuneClusters(n, nq)
		}
		db, err := Open(ctx, filepath.Join(t.TempDir(), "t.db"))
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]int{}
		t0 := time.Now()
		for s := 0; s < n; s += 500 {
			var docs []core.Document
			for i := s; i < min(s+500, n); i++ {
				d := core.Document{ID: core.NewDocID(), Text: "x", Embedding: vecs[i],
					Meta: core.Metadata{Type: core.DocMemory, Timestamp: time.Now(), Source: core.SourceImport, Scope: core.ScopeGlobal, Importance: 3}}
				ids[d.ID] = i
				docs = append(docs, d)
			}
			if err := db.Put(ctx, docs...); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("%s: put %d in %v", ds, n, time.Since(t0))
		top := make([][]float64, nq)
		for qi, q := range qs {
			ds := make([]float64, n)
			for i, v := range vecs {
				ds[i] = CosineDistance(q, v)
			}
			sort.Float64s(ds)
			top[qi] = ds[:100]
		}
		for w := range 10 {
			db.Search(ctx, core.VectorQuery{Filter: core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}}, Vector: qs[w], K: k})
		}
		for _, kc := range []struct {
			k     int
			cands []int
		}{{10, []int{40, 60, 80, 100}}, {20, []int{40, 60, 80}}, {80, []int{100, 160, 240}}} {
			k, cands := kc.k, kc.cands
			lat := make([][]time.Duration, len(cands))
			rec := make([]float64, len(cands))
			for qi, q := range qs {
				for ci := range cands {
					ci = (ci + qi) % len(cands)
					vq := core.VectorQuery{Filter: core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}}, Vector: q, K: k}
					t0 := time.Now()
					docs, err := db.hammingCandidates(ctx, vq, cands[ci])
					if err != nil {
						t.Fatal(err)
					}
					var d []float64
					for _, doc := range docs {
						d = append(d, CosineDistance(q, doc.Embedding))
					}
					sort.Float64s(d)
					lat[ci] = append(lat[ci], time.Since(t0))
					for _, x := range d[:k] {
						if x <= top[qi][k-1]+1e-6 {
							rec[ci] += 1.0 / float64(k) / nq
						}
					}
				}
			}
			for ci, c := range cands {
				sort.Slice(lat[ci], func(i, j int) bool { return lat[ci][i] < lat[ci][j] })
				t.Logf("%s n=%d bits=%d k %d cands %4d  p50 %6.2fms  recall %.3f", ds, n, codeBits, k, c, float64(lat[ci][nq/2])/1e6, rec[ci])
			}
		}
		db.Close()
	}
}
