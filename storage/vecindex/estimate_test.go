package vecindex

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ada-chat/ada/core"
)

// The estimate must follow the vectors' inner product more closely than the
// codes' Hamming distance does (its reason to exist): over rows at every
// distance from a query, its correlation with the exact cosine similarity
// is high, and higher than Hamming's.
func TestEstimateTracksTheInnerProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	q := gaussian(rng, 1)
	qc, e := newQuery(q)
	var cos, est, ham []float64
	for i := range 2000 {
		v := gaussian(rng, 1)
		w := float32(i) / 2000 // from unrelated to near the query
		for d := range v {
			v[d] = w*q[d] + (1-w)*v[d]
		}
		c := CodeOf(Quantize(v))
		cos = append(cos, 1-CosineDistance(q, v))
		est = append(est, -e.estimate(&c))
		ham = append(ham, -float64(hamming(&c, &qc)))
	}
	re, rh := correlation(cos, est), correlation(cos, ham)
	if re < 0.99 || re <= rh {
		t.Errorf("correlation with the cosine: estimate %.4f, Hamming %.4f; want ≥ 0.99 and above Hamming's", re, rh)
	}
}

func correlation(a, b []float64) float64 {
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma /= float64(len(a))
	mb /= float64(len(b))
	var sab, saa, sbb float64
	for i := range a {
		sab += (a[i] - ma) * (b[i] - mb)
		saa += (a[i] - ma) * (a[i] - ma)
		sbb += (b[i] - mb) * (b[i] - mb)
	}
	return sab / math.Sqrt(saa*sbb)
}

// NearestVector finds, after an exact rescoring of its candidates, what an
// exact scan of the vectors finds (recall@10 ≥ 0.95) through the inverted
// files, within the filter, and as many as asked for when the filter admits
// as many; a probe read on every core gives what one read on one core
// gives.
func TestNearestVectorRecall(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	const n = 4000
	centres := make([][]float32, 200)
	for i := range centres {
		centres[i] = gaussian(rng, 1)
	}
	vecs := make([][]float32, n)
	ops := make([]Op, n)
	topic := make([]int, n)
	// A scope's rows are about its own topics, as an entity's memories are.
	scopeOf := func(i int) string {
		if topic[i]%10 == 3 {
			return "entity:tenth"
		}
		return core.ScopeGlobal
	}
	for i := range vecs {
		topic[i] = rng.IntN(len(centres))
		v, c := gaussian(rng, 0.7), centres[topic[i]]
		for d := range v {
			v[d] += c[d]
		}
		vecs[i] = v
		ops[i] = Op{Rowid: int64(i), Type: string(core.DocMemory), Scope: scopeOf(i), Code: CodeOf(Quantize(v))}
	}
	x, serial := smallIndex(), smallIndex()
	serial.probeChunk = n + 1
	x.Apply(ops)
	serial.Apply(ops)
	// Both train their lists in the background: compare them trained.
	x.trainers.Wait()
	serial.trainers.Wait()
	eff := Effort{Shortlist: 400, Estimated: 100}
	for _, tc := range []struct {
		f     Filter
		admit func(int) bool
	}{
		{Filter{}, func(int) bool { return true }},
		{Filter{Scopes: []string{core.ScopeGlobal}}, func(i int) bool { return scopeOf(i) == core.ScopeGlobal }},
		{Filter{Scopes: []string{"entity:tenth"}}, func(i int) bool { return scopeOf(i) == "entity:tenth" }},
	} {
		var within []int
		for i := range n {
			if tc.admit(i) {
				within = append(within, i)
			}
		}
		found := 0
		const queries = 30
		for range queries {
			q := slices.Clone(vecs[within[rng.IntN(len(within))]])
			for d := range q {
				q[d] += float32(rng.NormFloat64() * 0.3)
			}
			got := x.NearestVector(q, tc.f, 20, eff)
			if one := serial.NearestVector(q, tc.f, 20, eff); !slices.Equal(got, one) {
				t.Fatalf("%+v: the probe on every core gave %v, on one %v", tc.f, got, one)
			}
			var exact, cands []float64
			for i, v := range vecs {
				if tc.admit(i) {
					exact = append(exact, CosineDistance(q, v))
				}
			}
			if len(got) != 20 {
				t.Fatalf("%+v: %d candidates, want 20", tc.f, len(got))
			}
			for _, r := range got {
				if !tc.admit(int(r)) {
					t.Fatalf("%+v: row %d is not within the filter", tc.f, r)
				}
				cands = append(cands, CosineDistance(q, vecs[r]))
			}
			slices.Sort(exact)
			slices.Sort(cands)
			for _, d := range cands[:10] {
				if d <= exact[9] {
					found++
				}
			}
		}
		if recall := float64(found) / (10 * queries); recall < 0.95 {
			t.Errorf("%+v: recall@10 %.3f, want ≥ 0.95", tc.f, recall)
		}
	}
}
