package storage

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/storagetest"
)

// openBenchStore opens an empty store for a benchmark, closed with it, and
// the number of documents to put in it: ADA_BENCH_N, default 20000.
func openBenchStore(b *testing.B) (*DB, int) {
	n := 20000
	if s := os.Getenv("ADA_BENCH_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	db, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db, n
}

// BenchmarkSearch measures Search for 10 memories among ADA_BENCH_N stored
// memories (default 20000) of random unit vectors. `make bench` runs the
// full comparison (cmd/adabench); this is for profiling:
//
//	ADA_BENCH_N=100000 go test -tags goolm -run '^$' -bench Search -cpuprofile cpu.out ./storage
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	db, n := openBenchStore(b)
	rng := rand.New(rand.NewPCG(1, 2))
	docs := make([]core.Document, 0, 500)
	for i := 0; i < n; i += len(docs) {
		docs = docs[:0]
		for range min(500, n-i) {
			docs = append(docs, core.Document{ID: core.NewDocID(), Text: "memory", Embedding: storagetest.RandomUnit(rng),
				Meta: core.Metadata{Type: core.DocMemory, Timestamp: time.Now(), Source: core.SourceImport,
					Scope: core.ScopeGlobal, Importance: 3}})
		}
		if err := db.Put(ctx, docs...); err != nil {
			b.Fatal(err)
		}
	}
	queries := make([][]float32, 64)
	for i := range queries {
		queries[i] = storagetest.RandomUnit(rng)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := core.VectorQuery{Filter: core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}},
			Vector: queries[i%len(queries)], K: 10}
		if _, err := db.Search(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}
