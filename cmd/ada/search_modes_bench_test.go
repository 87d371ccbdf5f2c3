package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
)

// BenchmarkMemorySearchModes measures memory search through the core (the
// query's embedding included) over ADA_BENCH_MEMORIES memories (default
// 100k), in each search mode, and prints a table. Run it with `make bench`.
func BenchmarkMemorySearchModes(b *testing.B) {
	n := benchMemoryCount(100_000)
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "ada.db")
	db, err := storage.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	putGenerated(b, db, n, func(i int, d *core.Document) { d.Meta.Type, d.Meta.Importance = core.DocMemory, 1+i%5 })
	fmt.Printf("seeded %d memories in %.1f s\n", n, time.Since(start).Seconds())
	// Opening loads every code into memory: the start-up cost of fast search.
	db.Close()
	start = time.Now()
	if db, err = storage.Open(ctx, path); err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	fmt.Printf("store opened (vector codes loaded) in %.0f ms\n", float64(time.Since(start).Microseconds())/1000)
	queries := benchQueries
	fmt.Printf("\nMemory search through the core (%d memories, hash embedder, limit 10, GOMAXPROCS=%d)\n", n, runtime.GOMAXPROCS(0))
	fmt.Printf("%-10s %10s %10s\n", "mode", "p50", "p99")
	for _, mode := range []string{core.SearchVector, core.SearchKeyword, core.SearchHybrid} {
		opts := core.DefaultOptions()
		opts.SearchMode = mode
		svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}}, opts)
		times := measure(200, func() time.Duration {
			q := queries[time.Now().Nanosecond()%len(queries)]
			t0 := time.Now()
			if _, err := svc.MemoryPage(ctx, core.MemoryQuery{Text: q, Limit: 10}); err != nil {
				b.Fatal(err)
			}
			return time.Since(t0)
		})
		svc.Close()
		fmt.Printf("%-10s %10s %10s\n", mode, ms(pct(times, 50)), ms(pct(times, 99)))
	}
}
