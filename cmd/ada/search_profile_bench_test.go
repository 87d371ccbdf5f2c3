package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
)

// BenchmarkMemorySearchLoop runs one memory search per iteration through
// the core over ADA_BENCH_MEMORIES memories (default 1000), in the default
// (hybrid) mode, for profiling:
//
//	go test -run '^$' -bench MemorySearchLoop -cpuprofile cpu.out ./cmd/ada
func BenchmarkMemorySearchLoop(b *testing.B) {
	n := 1000
	if v := os.Getenv("ADA_BENCH_MEMORIES"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(b.TempDir(), "ada.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	putGenerated(b, db, n, func(i int, d *core.Document) { d.Meta.Type, d.Meta.Importance = core.DocMemory, 1+i%5 })
	opts := core.DefaultOptions()
	if m := os.Getenv("ADA_BENCH_MODE"); m != "" {
		opts.SearchMode = m
	}
	svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}}, opts)
	defer svc.Close()
	queries := []string{"what about the coffee meeting", "remind me of the project deadline", "any news on the berlin train",
		"what music do I like", "note 4711", "doctor birthday in paris", "invoice for the garden", "flight to berlin on friday"}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := svc.MemoryPage(ctx, core.MemoryQuery{Text: queries[i%len(queries)], Limit: 10}); err != nil {
			b.Fatal(err)
		}
	}
}
