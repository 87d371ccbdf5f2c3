package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"runtime"
	"testing"
	"time"
)

// BenchmarkMemoryPage measures the memory page's answers over
// ADA_BENCH_MEMORIES memories (default 100k; issue 30's target is ≤ 50 ms
// p50): the newest-first list with its count, the list narrowed by a
// filter, and a search page (the API's hybrid search with each hit's
// reasons), from the request to the last byte of the HTML, against ada
// serve. Run it with `make bench`.
func BenchmarkMemoryPage(b *testing.B) {
	n := benchMemoryCount(100_000)
	dir := b.TempDir()
	t0 := time.Now()
	seedMemories(b, dir, n)
	seeded := time.Since(t0)
	ada := startAda(b, "serve", testEnv(b, map[string]string{"DATA_DIR": dir, "LOG_LEVEL": "WARN"}))
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}

	fmt.Printf("\nMemory page /ui/, request to the last byte of the HTML (%d memories seeded in %s, hash embedder, 50 a page, GOMAXPROCS=%d)\n",
		n, seeded.Round(time.Second), runtime.GOMAXPROCS(0))
	fmt.Printf("%-28s %10s %10s\n", "page", "p50", "p99")
	pages := []struct {
		name  string
		paths func(i int) string
	}{
		{"list, newest first", func(int) string { return "/ui/memories" }},
		{"list, importance ≥ 5", func(int) string { return "/ui/memories?importance=5" }},
		{"search", func(i int) string { return "/ui/memories?q=" + url.QueryEscape(benchQueries[i%len(benchQueries)]) }},
	}
	for _, pg := range pages {
		i := 0
		times := measure(200, func() time.Duration {
			i++
			start := time.Now()
			resp, err := client.Get(ada.URL + pg.paths(i))
			if err != nil {
				b.Fatal(err)
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				b.Fatalf("%s: %d %v", pg.name, resp.StatusCode, err)
			}
			return time.Since(start)
		})
		fmt.Printf("%-28s %10s %10s\n", pg.name, ms(pct(times, 50)), ms(pct(times, 99)))
	}
}
