package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
)

// BenchmarkMCPSearch measures an MCP search_memory call, from the client's
// call to its decoded result, over ADA_BENCH_MEMORIES memories (default
// 10k): over streamable HTTP against ada serve, and over stdio against the
// built binary's ada mcp. Run it with `make bench`.
func BenchmarkMCPSearch(b *testing.B) {
	n := benchMemoryCount(10_000)
	dir := b.TempDir()
	seedMemories(b, dir, n)
	env := testEnv(b, map[string]string{"DATA_DIR": dir, "LOG_LEVEL": "WARN"})

	fmt.Printf("\nMCP search_memory, client call to result (%d memories, hash embedder, limit 10, GOMAXPROCS=%d)\n", n, runtime.GOMAXPROCS(0))
	fmt.Printf("%-10s %10s %10s\n", "transport", "p50", "p99")
	ada := startAda(b, "serve", env)
	p50, p99 := timeMCPSearch(b, &sdk.StreamableClientTransport{Endpoint: ada.URL + "/mcp"})
	ada.stop() // frees DATA_DIR for ada mcp
	fmt.Printf("%-10s %10s %10s\n", "http", ms(p50), ms(p99))

	cmd := exec.Command(buildAda(b), "mcp")
	cmd.Env = append(os.Environ(), "DATA_DIR="+dir, "ADA_ENV_FILE=/dev/null", "LOG_LEVEL=WARN")
	p50, p99 = timeMCPSearch(b, &sdk.CommandTransport{Command: cmd})
	fmt.Printf("%-10s %10s %10s\n", "stdio", ms(p50), ms(p99))
}

func timeMCPSearch(b testing.TB, transport sdk.Transport) (p50, p99 time.Duration) {
	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	queries, i := benchQueries, 0
	times := measure(200, func() time.Duration {
		i++
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search_memory", Arguments: map[string]any{"query": queries[i%len(queries)], "limit": 10}})
		if err != nil || res.IsError {
			b.Fatalf("search_memory: %v %+v", err, res)
		}
		return time.Since(t0)
	})
	return pct(times, 50), pct(times, 99)
}

// benchMemoryCount is ADA_BENCH_MEMORIES, or def when it is unset.
func benchMemoryCount(def int) int {
	n := def
	if v := os.Getenv("ADA_BENCH_MEMORIES"); v != "" {
		fmt.Sscan(v, &n)
	}
	return n
}

// benchQueries are the memory benchmarks' queries.
var benchQueries = []string{"what about the coffee meeting", "remind me of the project deadline", "any news on the berlin train",
	"what music do I like", "note 4711", "doctor birthday in paris", "invoice for the garden", "flight to berlin on friday"}

// seedMemories writes n generated memories (hash embedder) into dir's ada.db.
func seedMemories(b testing.TB, dir string, n int) {
	db := openSeedStore(b, dir)
	defer db.Close()
	putGenerated(b, db, n, func(i int, d *core.Document) { d.Meta.Type, d.Meta.Importance = core.DocMemory, 1+i%5 })
}

// openSeedStore opens dir's ada.db for seeding, set to the hash embedder
// that the seeded documents' vectors come from.
func openSeedStore(b testing.TB, dir string) *storage.DB {
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(dir, "ada.db"))
	if err != nil {
		b.Fatal(err)
	}
	if err := db.CheckEmbedder(ctx, embed.HashName); err != nil {
		db.Close()
		b.Fatal(err)
	}
	return db
}
