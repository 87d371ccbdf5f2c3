package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
	"github.com/ada-chat/ada/storage/storagetest"
)

// BenchmarkMemorySearchLoop runs one memory search per iteration through
// the core over ADA_BENCH_MEMORIES memories (default 1000), in the default
// (hybrid) mode, for profiling:
//
//	go test -run '^$' -bench MemorySearchLoop -cpuprofile cpu.out ./cmd/ada
func BenchmarkMemorySearchLoop(b *testing.B) {
	n := benchInt(b, "ADA_BENCH_MEMORIES", 1000)
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

// BenchmarkMemorySearchHTTPLoop is BenchmarkMemorySearchLoop over HTTP:
// GET /v1/memory?search= on the program started in-process (one keep-alive
// client), so that a profile shows the API's own share beside the core's;
// with ADA_BENCH_SCALE_DATA set, on the scale bench's memories and queries:
//
//	go test -run '^$' -bench MemorySearchHTTPLoop -cpuprofile cpu.out ./cmd/ada
func BenchmarkMemorySearchHTTPLoop(b *testing.B) {
	n := benchInt(b, "ADA_BENCH_MEMORIES", 1000)
	env := testEnv(b, map[string]string{"LOG_LEVEL": "INFO"})
	db := openSeedStore(b, env["DATA_DIR"])
	queries := benchQueries
	if os.Getenv("ADA_BENCH_SCALE_DATA") != "" {
		// The scale bench's memories and queries: 8 to 16 words each.
		data := newScaleData(n, 100, 7)
		grow := &growingPair{db: db, plain: storagetest.OpenPlainVec0(b, filepath.Join(b.TempDir(), "plain.db"))}
		grow.to(b, data, 0, n)
		queries = data.queries
	} else {
		putGenerated(b, db, n, func(i int, d *core.Document) { d.Meta.Type, d.Meta.Importance = core.DocMemory, 1+i%5 })
	}
	db.Close()
	ada := startAda(b, "serve", env)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		searchOverHTTP(b, client, ada.URL, queries[i%len(queries)], 10)
	}
}
