package vecindex

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ada-chat/ada/core"
)

// smallIndex is an index whose segments get inverted files from 1,500 rows
// on, whose filters scan exactly up to 200 admitted rows and whose probes
// read on every core from 300 rows: the code of a million-document store,
// at a size -race runs in seconds.
func smallIndex() *Index {
	x := New()
	x.listMin, x.exactMax, x.probeChunk = 1500, 200, 300
	return x
}

// topicVectors returns n unit vectors around topics (as a semantic model's
// embeddings cluster), and their codes.
func topicVectors(rng *rand.Rand, n, topics int) []Code {
	centres := make([][]float32, topics)
	for i := range centres {
		centres[i] = gaussian(rng, 1)
	}
	codes := make([]Code, n)
	for i := range codes {
		v := gaussian(rng, 0.7)
		c := centres[rng.IntN(topics)]
		for d := range v {
			v[d] += c[d]
		}
		codes[i] = CodeOf(Quantize(v))
	}
	return codes
}

func gaussian(rng *rand.Rand, sd float64) []float32 {
	v := make([]float32, core.Dim)
	for d := range v {
		v[d] = float32(rng.NormFloat64() * sd)
	}
	return v
}

func hamming(a, b *Code) int {
	d := 0
	for w := range a {
		d += bits.OnesCount64(a[w] ^ b[w])
	}
	return d
}

// exactNearest is the k rowids of the codes admitted nearest to q, by a
// scan of all of them, with the distance of the k-th.
func exactNearest(codes []Code, q *Code, k int, admit func(int) bool) (kth int) {
	var ds []int
	for i := range codes {
		if admit(i) {
			ds = append(ds, hamming(&codes[i], q))
		}
	}
	slices.Sort(ds)
	if len(ds) == 0 {
		return math.MaxInt
	}
	return ds[min(k, len(ds))-1]
}

// The inverted files find what an exact scan of the codes finds: of the 10
// nearest codes, at least 95% are among a search's 60 candidates (what the
// store rescores), unfiltered, within a scope of most rows (probed), of a
// tenth and of a hundredth (scanned exactly); a filter admitting fewer
// rows than asked for gets them all. Rows deleted, moved and written again
// keep the lists in step.
func TestInvertedFileRecall(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n = 4000
	codes := topicVectors(rng, n, 200)
	scopeOf := func(i int) string {
		switch {
		case i%100 == 7:
			return "entity:small"
		case i%10 == 3:
			return "entity:tenth"
		}
		return core.ScopeGlobal
	}
	x := smallIndex()
	ops := make([]Op, n)
	for i := range ops {
		ops[i] = Op{Rowid: int64(i), Type: string(core.DocMemory), Scope: scopeOf(i), Code: codes[i]}
	}
	x.Apply(ops)
	// Deletes and rewrites: every 7th row deleted and written again (so it
	// is filed anew and other rows move), every 11th deleted for good.
	var churn []Op
	for i := 0; i < n; i += 7 {
		churn = append(churn, Op{Del: true, Rowid: int64(i)})
	}
	for i := 0; i < n; i += 7 {
		churn = append(churn, ops[i])
	}
	for i := 0; i < n; i += 11 {
		churn = append(churn, Op{Del: true, Rowid: int64(i)})
	}
	x.Apply(churn)
	x.trainers.Wait()
	alive := func(i int) bool { return i%11 != 0 }
	if _, err := x.Rows(); err != nil {
		t.Fatal(err)
	}
	x.mu.RLock()
	segs := len(x.segs)
	ivf := x.segs[0].ivf != nil
	x.mu.RUnlock()
	if segs != 1 || !ivf {
		t.Fatalf("%d segments, inverted file %v: the test does not reach the inverted file", segs, ivf)
	}
	filters := []struct {
		f     Filter
		admit func(int) bool
	}{
		{Filter{}, alive},
		{Filter{Type: string(core.DocMemory), Scopes: []string{core.ScopeGlobal}}, func(i int) bool { return alive(i) && scopeOf(i) == core.ScopeGlobal }},
		{Filter{Type: string(core.DocMemory), Scopes: []string{"entity:tenth"}}, func(i int) bool { return alive(i) && scopeOf(i) == "entity:tenth" }},
		{Filter{Scopes: []string{"entity:small"}}, func(i int) bool { return alive(i) && scopeOf(i) == "entity:small" }},
		// Scopes that hold every row: no row's scope needs checking.
		{Filter{Scopes: []string{core.ScopeGlobal, "entity:tenth", "entity:small"}}, alive},
	}
	for _, tc := range filters {
		admitted := 0
		for i := range n {
			if tc.admit(i) {
				admitted++
			}
		}
		found, total := 0, 0
		for range 50 {
			q := codes[rng.IntN(n)]
			flip := rng.IntN(len(q))
			q[flip] ^= rng.Uint64() // a query near a stored row, not on it
			kth := exactNearest(codes, &q, 10, tc.admit)
			got := x.Nearest(&q, tc.f, 60)
			if len(got) != min(60, admitted) {
				t.Fatalf("%+v: %d candidates of %d rows, want 60", tc.f, len(got), admitted)
			}
			within := 0
			for _, r := range got {
				if !tc.admit(int(r)) {
					t.Fatalf("%+v: row %d is not within the filter", tc.f, r)
				}
				if hamming(&codes[r], &q) <= kth {
					within++
				}
			}
			found += min(within, 10)
			total += 10
		}
		if recall := float64(found) / float64(total); recall < 0.95 {
			t.Errorf("%+v: recall@10 of the candidates %.3f, want ≥ 0.95", tc.f, recall)
		}
	}
	// A scope of 5 rows among the inverted file's: all 5 come back, and
	// none of another segment's, which has no row of that scope.
	var few []Op
	for i := range 5 {
		few = append(few, Op{Rowid: int64(n + i), Type: string(core.DocMemory), Scope: "entity:five", Code: codes[i*700+1]},
			Op{Rowid: int64(2*n + i), Type: string(core.DocTurn), Scope: core.ScopeGlobal, Conversation: "c", Code: codes[i]})
	}
	x.Apply(few)
	if got := x.Nearest(&codes[0], Filter{Scopes: []string{"entity:five"}}, 10); len(got) != 5 {
		t.Errorf("a scope of 5 rows gave %d", len(got))
	}
	// More candidates than the probe's share of the rows holds: it reads
	// on until it has them.
	if got := x.Nearest(&codes[0], Filter{Type: string(core.DocMemory)}, 3000); len(got) != 3000 {
		t.Errorf("3000 of the inverted file's rows asked for, %d given", len(got))
	}
}

// Writes committed while an index loads are queued and replayed over what
// the load read: a row deleted after the load's snapshot (which still holds
// it) stays deleted, and one written after it is there.
func TestLoadReplaysTheWritesMadeMeanwhile(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	codes := topicVectors(rng, 3, 1)
	x := NewLoading()
	if x.Ready() {
		t.Fatal("a loading index says it is ready")
	}
	x.Apply([]Op{
		{Del: true, Rowid: 1},
		{Rowid: 3, Type: "memory", Scope: "global", Code: codes[2]},
		{Rowid: 2, Type: "memory", Scope: "entity:x", Code: codes[1]}, // moved to another scope
	})
	snapshot := []RawRow{
		{Rowid: 1, Type: []byte("memory"), Scope: []byte("global"), Code: codeBytes(codes[0])},
		{Rowid: 2, Type: []byte("memory"), Scope: []byte("global"), Code: codeBytes(codes[1])},
	}
	if err := x.Load(len(snapshot), rawReader(snapshot)); err != nil {
		t.Fatal(err)
	}
	if !x.Ready() {
		t.Fatal("a loaded index says it is not ready")
	}
	rows, err := x.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rows[1]; ok || len(rows) != 2 || rows[2].Scope != "entity:x" || rows[3].Code != codes[2] {
		t.Fatalf("after the replay the index holds %+v", rows)
	}
}

func codeBytes(c Code) []byte {
	b := make([]byte, 0, CodeBytes)
	for _, w := range c {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b
}

func rawReader(rows []RawRow) func(*RawRow) (bool, error) {
	i := 0
	return func(r *RawRow) (bool, error) {
		if i == len(rows) {
			return false, nil
		}
		*r = rows[i]
		i++
		return true, nil
	}
}
