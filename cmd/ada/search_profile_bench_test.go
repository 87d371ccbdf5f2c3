package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
	"github.com/ada-chat/ada/storage/storagetest"
)

// BenchmarkMemorySearchLoop runs one memory search per iteration through
// the core over ADA_BENCH_MEMORIES memories (default 1000), in the default
// (hybrid) mode; with ADA_BENCH_SCALE_DATA set, on the scale bench's
// memories and queries (the in-process numbers of docs/operators.md's
// "Where a search's time goes at 1M"). For profiling:
//
//	go test -run '^$' -bench MemorySearchLoop -cpuprofile cpu.out ./cmd/ada
func BenchmarkMemorySearchLoop(b *testing.B) {
	ctx := context.Background()
	db := openSeedStore(b, b.TempDir())
	defer db.Close()
	queries := seedSearchLoop(b, db)
	opts := core.DefaultOptions()
	if m := os.Getenv("ADA_BENCH_MODE"); m != "" {
		opts.SearchMode = m
	}
	svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}}, opts)
	defer svc.Close()
	b.ResetTimer()
	cpu := cpuTime(b)
	for i := 0; b.Loop(); i++ {
		if _, err := svc.MemoryPage(ctx, core.MemoryQuery{Text: queries[i%len(queries)], Limit: 10}); err != nil {
			b.Fatal(err)
		}
	}
	reportCPUPerOp(b, cpu)
}

// reportCPUPerOp reports the process's CPU time per iteration since
// cpuTime returned from: on a shared machine a steadier measure than the
// time per iteration, which others' load stretches.
func reportCPUPerOp(b *testing.B, from time.Duration) {
	b.ReportMetric(float64((cpuTime(b)-from).Microseconds())/float64(b.N), "cpu-µs/op")
}

// BenchmarkMemorySearchHTTPLoop is BenchmarkMemorySearchLoop over HTTP:
// GET /v1/memory?search= on the program started in-process (one keep-alive
// client), so that a profile shows the API's own share beside the core's;
// with ADA_BENCH_SCALE_DATA set, on the scale bench's memories and queries:
//
//	go test -run '^$' -bench MemorySearchHTTPLoop -cpuprofile cpu.out ./cmd/ada
func BenchmarkMemorySearchHTTPLoop(b *testing.B) {
	env := testEnv(b, map[string]string{"LOG_LEVEL": "INFO"})
	db := openSeedStore(b, env["DATA_DIR"])
	queries := seedSearchLoop(b, db)
	db.Close()
	ada := startAda(b, "serve", env)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	b.ResetTimer()
	cpu := cpuTime(b)
	for i := 0; b.Loop(); i++ {
		searchOverHTTP(b, client, ada.URL, queries[i%len(queries)], "", 10)
	}
	reportCPUPerOp(b, cpu)
}

// seedSearchLoop writes the search loops' ADA_BENCH_MEMORIES memories
// (default 1000) into db and returns the queries to ask: generated
// memories and benchQueries, or with ADA_BENCH_SCALE_DATA set the scale
// bench's memories and queries (8 to 16 words each).
func seedSearchLoop(b *testing.B, db *storage.DB) []string {
	n := benchInt(b, "ADA_BENCH_MEMORIES", 1000)
	if os.Getenv("ADA_BENCH_SCALE_DATA") == "" {
		putGenerated(b, db, n, func(i int, d *core.Document) { d.Meta.Type, d.Meta.Importance = core.DocMemory, 1+i%5 })
		return benchQueries
	}
	data := newScaleData(n, 100, 7)
	grow := &growingPair{db: db, plain: storagetest.OpenPlainVec0(b, filepath.Join(b.TempDir(), "plain.db"))}
	grow.to(b, data, 0, n)
	return data.queries
}
