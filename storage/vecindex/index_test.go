package vecindex

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/storagetest"
)

// The candidates do not depend on the order of the scan: of equally near
// codes, the lower rowids are kept, however the rows were written, moved
// and deleted.
func TestIndexTiesGoToTheLowerRowid(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	near := CodeOf(Quantize(storagetest.RandomUnit(rng)))
	far := near
	for w := range far {
		far[w] = ^far[w]
	}
	x := New()
	var ops []Op
	for _, r := range rng.Perm(300) {
		c := far
		if r%3 == 0 {
			c = near // 100 ties at distance 0
		}
		ops = append(ops, Op{Rowid: int64(r + 1), Type: string(core.DocMemory), Scope: core.ScopeGlobal, Code: c})
	}
	x.Apply(ops)
	// Some moved (replaced by their own row, into another segment and back)
	// and some deleted and written again.
	var moves []Op
	for r := int64(1); r <= 300; r += 7 {
		moves = append(moves, Op{Del: true, Rowid: r}, Op{Rowid: r, Type: string(core.DocTurn), Scope: core.ScopeGlobal, Code: near})
	}
	x.Apply(moves)
	for i := range moves {
		if !moves[i].Del {
			moves[i].Type = string(core.DocMemory)
			if (moves[i].Rowid-1)%3 != 0 {
				moves[i].Code = far
			}
		}
	}
	x.Apply(moves)
	got := x.Nearest(&near, Filter{Type: string(core.DocMemory)}, 10)
	slices.Sort(got)
	want := []int64{1, 4, 7, 10, 13, 16, 19, 22, 25, 28}
	if !slices.Equal(got, want) {
		t.Fatalf("nearest 10 of 100 ties: %v, want %v", got, want)
	}
	if _, err := x.Rows(); err != nil {
		t.Fatal(err)
	}
}

// Load replaces what the index held with the rows read, and refuses a code
// of the wrong length.
func TestIndexLoad(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x := New()
	x.Apply([]Op{{Rowid: 99, Type: "memory", Scope: "global", Code: CodeOf(Quantize(storagetest.RandomUnit(rng)))}})
	codes := [][]byte{Quantize(storagetest.RandomUnit(rng)), Quantize(storagetest.RandomUnit(rng))}
	rows := []RawRow{
		{Rowid: 1, Type: []byte("memory"), Scope: []byte("global"), Code: codes[0]},
		{Rowid: 2, Type: []byte("turn"), Scope: []byte("global"), Conversation: []byte("c1"), Code: codes[1]},
	}
	if err := x.Load(len(rows), rawReader(rows)); err != nil {
		t.Fatal(err)
	}
	got, err := x.Rows()
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]Row{
		1: {Type: "memory", Scope: "global", Code: CodeOf(codes[0])},
		2: {Type: "turn", Scope: "global", Conversation: "c1", Code: CodeOf(codes[1])},
	}
	if len(got) != len(want) || got[1] != want[1] || got[2] != want[2] || x.Len() != 2 {
		t.Fatalf("loaded %d rows (Len %d), want rows 1 and 2 only", len(got), x.Len())
	}
	q := want[2].Code
	if ids := x.Nearest(&q, Filter{Conversation: "c1"}, 5); !slices.Equal(ids, []int64{2}) {
		t.Fatalf("nearest in conversation c1: %v", ids)
	}
	short := []RawRow{{Rowid: 3, Type: []byte("memory"), Code: codes[0][:8]}}
	if err := x.Load(1, rawReader(short)); err == nil {
		t.Fatal("a code of 8 bytes was loaded")
	}
	failed := errors.New("read failed")
	if err := x.Load(0, func(*RawRow) (bool, error) { return false, failed }); !errors.Is(err, failed) {
		t.Fatalf("err = %v", err)
	}
}

// Within and Keep select by type, scope and conversation as Nearest does.
func TestIndexWithinAndKeep(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x := New()
	var ops []Op
	for i := range 12 {
		op := Op{Rowid: int64(i + 1), Type: "memory", Scope: "global", Code: CodeOf(Quantize(storagetest.RandomUnit(rng)))}
		if i%3 == 0 {
			op.Scope = "entity:bo"
		}
		if i%4 == 0 {
			op.Type, op.Conversation = "turn", "c1"
		}
		ops = append(ops, op)
	}
	x.Apply(ops)
	f := Filter{Type: "memory", Scopes: []string{"global"}}
	ids, n, total := x.Within(f, 100)
	slices.Sort(ids)
	if want := []int64{2, 3, 6, 8, 11, 12}; !slices.Equal(ids, want) || n != len(want) || total != 12 {
		t.Fatalf("within: %v, %d of %d", ids, n, total)
	}
	if ids, n, _ := x.Within(f, 3); ids != nil || n != 6 {
		t.Fatalf("within, more than max: %v, %d", ids, n)
	}
	// A scope named twice (a caller's filter may repeat one) admits its
	// rows once: counted once, and each found once.
	twice := Filter{Type: "memory", Scopes: []string{"global", "global"}}
	if _, n, _ := x.Within(twice, 100); n != 6 {
		t.Fatalf("within a scope named twice: %d rows, want 6", n)
	}
	if got := x.Nearest(&ops[1].Code, twice, 10); len(got) != 6 {
		t.Fatalf("nearest within a scope named twice: %v, want 6 rows", got)
	}
	all := []int64{12, 1, 2, 3, 4, 99}
	kept := Keep(x, slices.Clone(all), f, func(r *int64) int64 { return *r })
	if want := []int64{12, 2, 3}; !slices.Equal(kept, want) {
		t.Fatalf("keep: %v, want %v", kept, want)
	}
	if kept := Keep(x, slices.Clone(all), Filter{Type: "nothing"}, func(r *int64) int64 { return *r }); len(kept) != 0 {
		t.Fatalf("keep of an unknown type: %v", kept)
	}
}

// BenchmarkCodeScanFiltered measures the in-memory scan of a chat's vector
// searches over 100k codes laid out like a chat store's: a tenth memories,
// the rest turns in conversations of 100.
func BenchmarkCodeScanFiltered(b *testing.B) {
	x := New()
	rng := rand.New(rand.NewPCG(5, 6))
	ops := make([]Op, 100_000)
	conv := ""
	for i := range ops {
		ops[i] = Op{Rowid: int64(i + 1), Type: string(core.DocMemory), Scope: core.ScopeGlobal}
		if i%10 != 0 {
			if i%100 == 1 {
				conv = core.NewConversationID()
			}
			ops[i].Type, ops[i].Conversation = string(core.DocTurn), conv
		}
		ops[i].Code = CodeOf(Quantize(storagetest.RandomUnit(rng)))
	}
	x.Apply(ops)
	q := CodeOf(Quantize(storagetest.RandomUnit(rng)))
	for _, f := range []struct {
		name string
		f    Filter
	}{
		{"memories", Filter{Type: string(core.DocMemory), Scopes: []string{core.ScopeGlobal}}},
		{"turns-of-a-conversation", Filter{Type: string(core.DocTurn), Conversation: conv}},
		{"summaries-of-a-conversation", Filter{Type: string(core.DocSummary), Conversation: conv}},
		{"all", Filter{}},
	} {
		b.Run(f.name, func(b *testing.B) {
			for b.Loop() {
				x.Nearest(&q, f.f, benchCandidates)
			}
		})
	}
}

// benchCandidates is the store's candidate count for a search of ten
// (storage.minCandidates).
const benchCandidates = 60

// BenchmarkCodeScan measures the in-memory scan alone over 100k codes.
func BenchmarkCodeScan(b *testing.B) {
	x := New()
	rng := rand.New(rand.NewPCG(5, 6))
	ops := make([]Op, 100_000)
	for i := range ops {
		ops[i] = Op{Rowid: int64(i + 1), Type: string(core.DocMemory), Scope: core.ScopeGlobal}
		ops[i].Code = CodeOf(Quantize(storagetest.RandomUnit(rng)))
	}
	x.Apply(ops)
	q := CodeOf(Quantize(storagetest.RandomUnit(rng)))
	f := Filter{Type: string(core.DocMemory), Scopes: []string{core.ScopeGlobal}}
	for b.Loop() {
		x.Nearest(&q, f, benchCandidates)
	}
}
