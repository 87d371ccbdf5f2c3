package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
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
	n := 100_000
	if v := os.Getenv("ADA_BENCH_MEMORIES"); v != "" {
		fmt.Sscan(v, &n)
	}
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(b.TempDir(), "ada.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu coffee tea garden meeting project deadline invoice weather music berlin paris train flight doctor birthday")
	start := time.Now()
	batch := make([]core.Document, 0, 1000)
	for i := range n {
		text := fmt.Sprintf("%s %s %s note %d about %s and %s", words[i%len(words)], words[(i*7)%len(words)], words[(i*13)%len(words)], i, words[(i*31)%len(words)], words[(i*17)%len(words)])
		batch = append(batch, core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text),
			Meta: core.Metadata{Type: core.DocMemory, Timestamp: time.Now().Add(-time.Duration(n-i) * time.Second), Source: core.SourceChat,
				Scope: core.ScopeGlobal, Importance: 1 + i%5}})
		if len(batch) == cap(batch) || i == n-1 {
			if err := db.Put(ctx, batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	fmt.Printf("seeded %d memories in %.1f s\n", n, time.Since(start).Seconds())
	queries := []string{"what about the coffee meeting", "remind me of the project deadline", "any news on the berlin train",
		"what music do I like", "note 4711", "doctor birthday in paris", "invoice for the garden", "flight to berlin on friday"}
	fmt.Printf("\nMemory search through the core (%d memories, hash embedder, limit 10, GOMAXPROCS=%d)\n", n, runtime.GOMAXPROCS(0))
	fmt.Printf("%-10s %10s %10s\n", "mode", "p50", "p99")
	for _, mode := range []string{core.SearchVector, core.SearchKeyword, core.SearchHybrid} {
		opts := core.DefaultOptions()
		opts.SearchMode = mode
		svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}}, opts)
		times := measure(200, func() time.Duration {
			q := queries[time.Now().Nanosecond()%len(queries)]
			t0 := time.Now()
			if _, err := svc.SearchMemories(ctx, core.MemoryQuery{Text: q, Limit: 10}); err != nil {
				b.Fatal(err)
			}
			return time.Since(t0)
		})
		svc.Close()
		fmt.Printf("%-10s %10s %10s\n", mode, ms(pct(times, 50)), ms(pct(times, 99)))
	}
}
