package storage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/vecindex"
)

// indexRows is what x holds, by rowid, after its own consistency checks.
func indexRows(t *testing.T, x *vecindex.Index) map[int64]vecindex.Row {
	t.Helper()
	rows, err := x.Rows()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// checkIndex: the in-memory index holds exactly documents_codes, and vector
// searches give what an exact scan gives (the stores here are smaller than
// the candidate count, so the two must agree exactly).
func checkIndex(t *testing.T, db *DB, queries []string) {
	t.Helper()
	ctx := context.Background()
	fresh := vecindex.NewLoading()
	if err := loadCodes(ctx, db.read, fresh); err != nil {
		t.Fatal(err)
	}
	got, want := indexRows(t, db.codes), indexRows(t, fresh)
	if len(got) != len(want) {
		t.Fatalf("index holds %d codes, documents_codes %d", len(got), len(want))
	}
	for r, w := range want {
		if got[r] != w {
			t.Fatalf("rowid %d: index %+v, documents_codes %+v", r, got[r].Type, w.Type)
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
		if r.Conversation != "" && !convs[r.Conversation] {
			convs[r.Conversation] = true
			filters = append(filters, core.Filter{ConversationID: r.Conversation}, core.Filter{Type: core.DocTurn, ConversationID: r.Conversation},
				core.Filter{Type: core.DocMemory, ConversationID: r.Conversation, Scopes: []string{core.ScopeGlobal}})
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
	if gone, err := db.DeleteWhere(ctx, core.Filter{Type: core.DocTurn, AfterTurn: nil, UpToTurn: ptr(1)}); err != nil || len(gone.IDs) != 2 {
		t.Fatalf("delete where: %d, %v", len(gone.IDs), err)
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
	before := indexRows(t, db.codes)
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
	after := indexRows(t, db.codes)
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
	want := indexRows(t, db.codes)
	db.Close()
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := indexRows(t, db.codes)
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
	if n := db.codes.Len(); n != 2*(40-14) {
		t.Fatalf("%d codes, want %d", n, 2*(40-14))
	}
}

// A store serves while its index loads: searches run exactly meanwhile,
// and the writes committed after the load's snapshot are replayed over what
// it read, so that a document deleted then is not brought back by the
// snapshot, which still holds it, and one written then is found.
func TestCodeIndexLoadKeepsTheWritesMadeMeanwhile(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	var docs []core.Document
	for i := range 30 {
		docs = append(docs, memoryDoc(fmt.Sprintf("fact %d about %d things", i, i*i), core.ScopeGlobal, 3))
	}
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	db.VectorIndexLen() // the first load is over
	db.codes = vecindex.NewLoading()
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM documents_codes").Scan(&n); err != nil || n != 30 {
		t.Fatalf("%d codes in the snapshot (%v)", n, err)
	}
	if err := db.Delete(ctx, docs[7].ID, core.DocMemory); err != nil {
		t.Fatal(err)
	}
	fresh := memoryDoc("a fact written while the index loads", core.ScopeGlobal, 3)
	if err := db.Put(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	search := func(text string) []string {
		hits, err := db.Search(ctx, core.VectorQuery{Filter: core.Filter{Type: core.DocMemory}, Vector: embed.HashVector(text), K: 3})
		if err != nil {
			t.Fatal(err)
		}
		return hitIDs(hits)
	}
	if db.codes.Ready() {
		t.Fatal("the index is ready before it was loaded")
	}
	if got := search(docs[7].Text); slices.Contains(got, docs[7].ID) {
		t.Fatalf("while loading, a deleted document is found: %v", got)
	}
	// A keyword search filtered by type does not wait for the load either:
	// SQL applies its filter, as when there is no index.
	kw, err := db.KeywordSearch(ctx, core.KeywordQuery{Filter: core.Filter{Type: core.DocMemory}, Text: "written while the index loads", K: 3})
	if err != nil || len(kw) == 0 || kw[0].ID != fresh.ID {
		t.Fatalf("while loading, a keyword search found %v (%v)", kw, err)
	}
	if err := readCodes(ctx, tx, db.codes); err != nil {
		t.Fatal(err)
	}
	if got := search(docs[7].Text); slices.Contains(got, docs[7].ID) {
		t.Fatalf("after the load, a deleted document is found: %v", got)
	}
	if got := search(fresh.Text); !slices.Contains(got, fresh.ID) {
		t.Fatalf("after the load, a document written meanwhile is not found: %v", got)
	}
	checkIndex(t, db, []string{docs[7].Text, fresh.Text})
}

// A load of the code index that fails is reported (WithLoadErrors), not
// only tried again: vector searches would otherwise scan SQLite for good
// with nothing in the log to say why.
func TestCodeIndexLoadFailureIsReported(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ada.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Put(ctx, memoryDoc("a fact whose code is damaged", core.ScopeGlobal, 3)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.write.ExecContext(ctx, "UPDATE documents_codes SET code = x'00'"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	failed := make(chan error, 1)
	db, err = Open(ctx, path, WithLoadErrors(func(err error) {
		select {
		case failed <- err:
		default:
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := <-failed; !strings.Contains(err.Error(), "code of 1 bytes") {
		t.Fatalf("reported %v", err)
	}
	if !db.VectorIndexLoading() {
		t.Fatal("the index is loaded from a damaged code")
	}
	if st, err := db.Status(ctx); err != nil || st.Index != core.IndexLoading {
		t.Fatalf("status %+v, %v; want the index loading", st, err)
	}
}

// The end of the code index's load is reported (WithLoadDone) with its
// size, and Status says the index is ready (while it loads, or when its
// load failed, Status says it is loading: TestCodeIndexLoadFailureIsReported).
func TestCodeIndexLoadIsReported(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ada.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"the first fact", "the second fact"} {
		if err := db.Put(ctx, memoryDoc(text, core.ScopeGlobal, 3)); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	loaded := make(chan int, 1)
	db, err = Open(ctx, path, WithLoadDone(func(rows int, took time.Duration) { loaded <- rows }))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if rows := <-loaded; rows != 2 {
		t.Fatalf("loaded %d codes, want 2", rows)
	}
	if st, err := db.Status(ctx); err != nil || st.Index != core.IndexReady {
		t.Fatalf("after the load: %+v, %v; want ready", st, err)
	}
}
