package main

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkMemoryWriteSync prints the latency of an acknowledged memory
// write over HTTP (POST /v1/memory, one writer at a time) with DB_SYNC=normal
// and DB_SYNC=full side by side: what the durability of each write costs.
func BenchmarkMemoryWriteSync(b *testing.B) {
	const n = 400
	fmt.Printf("\nmemory write, POST /v1/memory over HTTP, one writer, %d writes\n", n)
	fmt.Printf("%-8s %10s %10s %10s\n", "DB_SYNC", "p50", "p95", "p99")
	for _, mode := range []string{"normal", "full"} {
		ada := startAda(b, "serve", testEnv(b, map[string]string{"DB_SYNC": mode, "LOG_LEVEL": "ERROR"}))
		i := 0
		lat := measure(n, func() time.Duration {
			i++
			start := time.Now()
			// Words of its own, so that no write is a near-duplicate that
			// refreshes an earlier memory instead of adding one.
			text := fmt.Sprintf("note%d says alpha%d beta%d gamma%d", i, i, i*7, i*13)
			if _, err := postMemory(ada.URL, text); err != nil {
				b.Fatal(err)
			}
			return time.Since(start)
		})
		fmt.Printf("%-8s %10s %10s %10s\n", mode, ms(pct(lat, 50)), ms(pct(lat, 95)), ms(pct(lat, 99)))
		ada.stop()
	}
}
