package storage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

// indexRow is what the code index holds about a row.
type indexRow struct {
	typ, scope, conv string
	code             code
}

func (x *codeIndex) snapshot() map[int64]indexRow {
	x.mu.RLock()
	defer x.mu.RUnlock()
	names := make(map[uint32]string, len(x.names))
	for s, id := range x.names {
		names[id] = s
	}
	out := make(map[int64]indexRow, x.rows)
	for si, s := range x.segs {
		if x.bySegment[s.key] != int32(si) {
			panic(fmt.Sprintf("segment %d is not where its key says", si))
		}
		if len(s.heads) != len(s.rowids) || len(s.codes) != len(s.rowids) || len(s.scopes) != len(s.rowids) {
			panic(fmt.Sprintf("segment %d: slices of different lengths", si))
		}
		for i, r := range s.rowids {
			if x.pos[r] != (rowRef{int32(si), int32(i)}) {
				panic(fmt.Sprintf("rowid %d at %d/%d, pos says %v", r, si, i, x.pos[r]))
			}
			if s.heads[i] != [headWords]uint64(s.codes[i][:headWords]) {
				panic(fmt.Sprintf("rowid %d: head is not its code's", r))
			}
			out[r] = indexRow{names[s.key.typ], names[s.scopes[i]], names[s.key.conv], s.codes[i]}
		}
	}
	if len(x.pos) != len(out) || x.rows != len(out) {
		panic(fmt.Sprintf("pos has %d rows, rows says %d, segments hold %d", len(x.pos), x.rows, len(out)))
	}
	return out
}

// checkIndex: the in-memory index holds exactly documents_codes, and vector
// searches give what an exact scan gives (the stores here are smaller than
// the candidate count, so the two must agree exactly).
func checkIndex(t *testing.T, db *DB, queries []string) {
	t.Helper()
	ctx := context.Background()
	fresh := newCodeIndex()
	if err := fresh.load(ctx, db.read); err != nil {
		t.Fatal(err)
	}
	got, want := db.codes.snapshot(), fresh.snapshot()
	if len(got) != len(want) {
		t.Fatalf("index holds %d codes, documents_codes %d", len(got), len(want))
	}
	for r, w := range want {
		if got[r] != w {
			t.Fatalf("rowid %d: index %+v, documents_codes %+v", r, got[r].typ, w.typ)
		}
	}
	var docs int
	if err := db.read.QueryRowContext(ctx, "SELECT count(*) FROM documents").Scan(&docs); err != nil || docs != len(want) {
		t.Fatalf("%d documents, %d codes (%v)", docs, len(want), err)
	}
	filters := []core.Filter{{}, {Type: core.DocMemory}, {Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}},
		{Type: core.DocMemory, Scopes: []string{"entity:bo", core.ScopeGlobal}}, {Type: core.DocTurn}, {Type: "nothing"},
		{ConversationID: core.NewConversationID()}}
	convs := map[string]bool{}
	for _, r := range want {
		if r.conv != "" && !convs[r.conv] {
			convs[r.conv] = true
			filters = append(filters, core.Filter{ConversationID: r.conv}, core.Filter{Type: core.DocTurn, ConversationID: r.conv},
				core.Filter{Type: core.DocMemory, ConversationID: r.conv, Scopes: []string{core.ScopeGlobal}})
		}
	}
	for _, text := range queries {
		for _, f := range filters {
			q := core.VectorQuery{Filter: f, Vector: embed.HashVector(text), K: 5}
			approx, err := db.approximateSearch(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			exact, err := db.exactSearch(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !sameHitsUpToTies(approx, exact) {
				t.Fatalf("query %q, filter %+v: search %v, exact scan %v", text, f, hitIDs(approx), hitIDs(exact))
			}
		}
	}
}

// sameHitsUpToTies reports whether a and b have the same distances, in
// order, and the same documents but for those tied (to float32 precision:
// the exact scan picks its k by SQLite's float32 distances, the search by
// float64 ones where it can) with the last, which either may keep.
func sameHitsUpToTies(a, b []core.Hit) bool {
	const tie = 1e-6
	if len(a) != len(b) {
		return false
	}
	ids := map[string]bool{}
	for i := range b {
		if math.Abs(a[i].Distance-b[i].Distance) > tie {
			return false
		}
		ids[b[i].ID] = true
	}
	for _, h := range a {
		if !ids[h.ID] && math.Abs(h.Distance-b[len(b)-1].Distance) > tie {
			return false
		}
	}
	return true
}

func hitIDs(hits []core.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

// The index follows every kind of write: put, replacement by id, Replace,
// Delete, DeleteWhere, the provenance cascade and Reindex.
func TestCodeIndexFollowsWrites(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	queries := []string{"coffee in the morning", "project deadline", "Paris"}
	conv := core.NewConversationID()
	var turns, mems []core.Document
	for i := range 10 {
		turns = append(turns, turnDoc(conv, "", i, fmt.Sprintf("turn %d about coffee and project %d", i, i%3), time.Now()))
	}
	for i := range 20 {
		scope := core.ScopeGlobal
		if i%3 == 0 {
			scope = "entity:bo"
		}
		m := memoryDoc(fmt.Sprintf("memory %d: Sam likes topic %d in Paris", i, i%5), scope, 3)
		if i < 4 {
			m.Meta.SourceIDs = []string{turns[i].ID}
		}
		mems = append(mems, m)
	}
	if err := db.Put(ctx, append(slices.Clone(turns), mems...)...); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, db, queries)

	mems[5].Text, mems[5].Embedding = "coffee in the morning", embed.HashVector("coffee in the morning")
	mems[6].Meta.Scope = "entity:bo"
	if err := db.Put(ctx, mems[5], mems[6]); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, db, queries)

	if err := db.Replace(ctx, core.Filter{Type: core.DocMemory, Scopes: []string{"entity:bo"}},
		memoryDoc("project deadline moved to April", "entity:bo", 2)); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, db, queries)

	if err := db.Delete(ctx, mems[7].ID, core.DocMemory); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, db, queries)

	// Turns 0 and 1 are the only sources of two memories: they go too.
	if n, err := db.DeleteWhere(ctx, core.Filter{Type: core.DocTurn, AfterTurn: nil, UpToTurn: ptr(1)}); err != nil || n != 2 {
		t.Fatalf("delete where: %d, %v", n, err)
	}
	if _, err := db.Get(ctx, mems[1].ID); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("the cascade kept memory 1: %v", err)
	}
	checkIndex(t, db, queries)
	if err := db.Delete(ctx, turns[2].ID, core.DocTurn); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, db, queries)

	if err := db.Reindex(ctx, shiftedEmbedder{}, 7, nil); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, db, queries)
}

func ptr[T any](v T) *T { return &v }

// shiftedEmbedder embeds differently from the hash embedder, so that a
// reindex changes every code.
type shiftedEmbedder struct{}

func (shiftedEmbedder) Name() string { return "shifted" }
func (shiftedEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, s := range texts {
		out[i] = embed.HashVector("shifted " + s)
	}
	return out, nil
}

// A transaction that fails after writing leaves the index as it was.
func TestCodeIndexIgnoresRolledBackWrites(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	a, b := memoryDoc("Sam likes tea", core.ScopeGlobal, 3), memoryDoc("Sam likes cake", core.ScopeGlobal, 3)
	if err := db.Put(ctx, a, b); err != nil {
		t.Fatal(err)
	}
	before := db.codes.snapshot()
	failed := errors.New("failed half-way")
	b.Embedding = embed.HashVector("Sam likes pie")
	put := encodeAll(t, []core.Document{b, memoryDoc("Sam likes biscuits", core.ScopeGlobal, 3)})
	err := db.inTx(ctx, func(tx *writeTx) error {
		if err := deleteByID(ctx, tx, a.ID, ""); err != nil {
			return err
		}
		for i := range put {
			if err := putDocument(ctx, tx, &put[i]); err != nil {
				return err
			}
		}
		if len(tx.codes) != 4 {
			t.Errorf("the transaction recorded %d changes, want 4", len(tx.codes))
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("err = %v", err)
	}
	after := db.codes.snapshot()
	if len(after) != len(before) {
		t.Fatalf("index has %d codes after a rollback, %d before", len(after), len(before))
	}
	for r, w := range before {
		if after[r] != w {
			t.Fatalf("rowid %d changed after a rollback", r)
		}
	}
	checkIndex(t, db, []string{"Sam likes pie", "tea"})
	// A change that fails inside its transaction (a duplicate id among
	// the puts is fine; a cancelled context is not) leaves it untouched too.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := db.Put(cctx, memoryDoc("never stored", core.ScopeGlobal, 3)); err == nil {
		t.Fatal("a put with a cancelled context succeeded")
	}
	checkIndex(t, db, []string{"never stored"})
}

// A reopened store loads the codes it had.
func TestCodeIndexReloadsOnOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ada.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var docs []core.Document
	for i := range 30 {
		docs = append(docs, memoryDoc(fmt.Sprintf("fact %d about %d things", i, i*i), core.ScopeGlobal, 3))
	}
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	if err := db.Delete(ctx, docs[3].ID, core.DocMemory); err != nil {
		t.Fatal(err)
	}
	want := db.codes.snapshot()
	db.Close()
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := db.codes.snapshot()
	if len(got) != len(want) || len(got) != 29 {
		t.Fatalf("reopened index has %d codes, want %d", len(got), len(want))
	}
	for r, w := range want {
		if got[r] != w {
			t.Fatalf("rowid %d differs after reopening", r)
		}
	}
	checkIndex(t, db, []string{"fact 7 about 49 things"})
}

// Searches and writes run concurrently (go test -race).
func TestCodeIndexConcurrentSearchAndWrites(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 8)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				d := memoryDoc(fmt.Sprintf("writer %d fact %d", w, i), core.ScopeGlobal, 3)
				if err := db.Put(ctx, d); err != nil {
					errs <- err
					return
				}
				if i%3 == 0 {
					if err := db.Delete(ctx, d.ID, core.DocMemory); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	var readers sync.WaitGroup
	for range 3 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				q := core.VectorQuery{Filter: core.Filter{Type: core.DocMemory}, Vector: embed.HashVector("writer fact"), K: 5}
				if _, err := db.Search(ctx, q); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkIndex(t, db, []string{"writer 1 fact 7"})
	if n := db.codes.len(); n != 2*(40-14) {
		t.Fatalf("%d codes, want %d", n, 2*(40-14))
	}
}

// The candidates do not depend on the order of the scan: of equally near
// codes, the lower rowids are kept, however the rows were written, moved
// and deleted.
func TestCodeIndexTiesGoToTheLowerRowid(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	near := codeOf(quantize(randomUnit(rng)))
	far := near
	for w := range far {
		far[w] = ^far[w]
	}
	x := newCodeIndex()
	var ops []codeOp
	for _, r := range rng.Perm(300) {
		c := far
		if r%3 == 0 {
			c = near // 100 ties at distance 0
		}
		ops = append(ops, codeOp{rowid: int64(r + 1), typ: string(core.DocMemory), scope: core.ScopeGlobal, code: c})
	}
	x.apply(ops)
	// Some moved (replaced by their own row, into another segment and back)
	// and some deleted and written again.
	var moves []codeOp
	for r := int64(1); r <= 300; r += 7 {
		moves = append(moves, codeOp{del: true, rowid: r}, codeOp{rowid: r, typ: string(core.DocTurn), scope: core.ScopeGlobal, code: near})
	}
	x.apply(moves)
	for i := range moves {
		if !moves[i].del {
			moves[i].typ = string(core.DocMemory)
			if (moves[i].rowid-1)%3 != 0 {
				moves[i].code = far
			}
		}
	}
	x.apply(moves)
	got := x.nearest(&near, codeFilter{Type: core.DocMemory}, 10)
	slices.Sort(got)
	want := []int64{1, 4, 7, 10, 13, 16, 19, 22, 25, 28}
	if !slices.Equal(got, want) {
		t.Fatalf("nearest 10 of 100 ties: %v, want %v", got, want)
	}
}

// BenchmarkCodeScanFiltered measures the in-memory scan of a chat's vector
// searches over 100k codes laid out like a chat store's: a tenth memories,
// the rest turns in conversations of 100.
func BenchmarkCodeScanFiltered(b *testing.B) {
	x := newCodeIndex()
	rng := rand.New(rand.NewPCG(5, 6))
	ops := make([]codeOp, 100_000)
	conv := ""
	for i := range ops {
		ops[i] = codeOp{rowid: int64(i + 1), typ: string(core.DocMemory), scope: core.ScopeGlobal}
		if i%10 != 0 {
			if i%100 == 1 {
				conv = core.NewConversationID()
			}
			ops[i].typ, ops[i].conversationID = string(core.DocTurn), conv
		}
		ops[i].code = codeOf(quantize(randomUnit(rng)))
	}
	x.apply(ops)
	q := codeOf(quantize(randomUnit(rng)))
	for _, f := range []struct {
		name string
		f    codeFilter
	}{
		{"memories", codeFilter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}}},
		{"turns-of-a-conversation", codeFilter{Type: core.DocTurn, ConversationID: conv}},
		{"summaries-of-a-conversation", codeFilter{Type: core.DocSummary, ConversationID: conv}},
		{"all", codeFilter{}},
	} {
		b.Run(f.name, func(b *testing.B) {
			for b.Loop() {
				x.nearest(&q, f.f, minCandidates)
			}
		})
	}
}

// BenchmarkCodeScan measures the in-memory scan alone over 100k codes.
func BenchmarkCodeScan(b *testing.B) {
	x := newCodeIndex()
	rng := rand.New(rand.NewPCG(5, 6))
	ops := make([]codeOp, 100_000)
	for i := range ops {
		ops[i] = codeOp{rowid: int64(i + 1), typ: string(core.DocMemory), scope: core.ScopeGlobal}
		ops[i].code = codeOf(quantize(randomUnit(rng)))
	}
	x.apply(ops)
	q := codeOf(quantize(randomUnit(rng)))
	f := codeFilter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}}
	for b.Loop() {
		x.nearest(&q, f, minCandidates)
	}
}
