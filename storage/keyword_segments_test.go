package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/storagetest"
)

// keywordSegments is how many segments the keyword index holds.
func keywordSegments(tb testing.TB, db *DB) int {
	tb.Helper()
	var n int
	if err := db.write.QueryRowContext(context.Background(), "SELECT count(DISTINCT segid) FROM documents_fts_idx").Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

// putMemories writes n memories of words w draws, per documents at a time.
func putMemories(tb testing.TB, db *DB, w *storagetest.Words, n, per int) {
	tb.Helper()
	for start := 0; start < n; start += per {
		var docs []core.Document
		for range min(per, n-start) {
			docs = append(docs, memoryDoc(strings.Join(w.Sentence(8, 16), " "), core.ScopeGlobal, 3))
		}
		if err := db.Put(context.Background(), docs...); err != nil {
			tb.Fatal(err)
		}
	}
}

// A store written a few documents at a time keeps few keyword segments:
// FTS5's own merge waits for 64 pages written, so without the merge step
// of each write (mergeKeywordSQL) 1,000 memories written 100 at a time
// left 10 segments (4 with it), and 600 written 2 at a time 16 (6).
func TestKeywordIndexKeepsFewSegments(t *testing.T) {
	for _, c := range []struct{ n, per, most int }{{1000, 100, 4}, {600, 2, 6}} {
		t.Run(fmt.Sprintf("%d by %d", c.n, c.per), func(t *testing.T) {
			db := openTestDB(t)
			w := storagetest.NewWords(rand.New(rand.NewPCG(3, 4)), []string{"coffee", "tea"}, 2000)
			putMemories(t, db, w, c.n, c.per)
			got := keywordSegments(t, db)
			t.Logf("%d segments", got)
			if got > c.most {
				t.Fatalf("%d keyword segments after %d memories written %d at a time, want at most %d", got, c.n, c.per, c.most)
			}
			// The merges lose nothing: the index matches the documents.
			if _, err := db.write.ExecContext(context.Background(), "INSERT INTO documents_fts (documents_fts) VALUES ('integrity-check')"); err != nil {
				t.Fatalf("keyword index after the merges: %v", err)
			}
		})
	}
}

// BenchmarkKeywordSegments measures the keyword search of 1,000 (and
// ADA_BENCH_SIZES) memories written 100 at a time, as the merge step of
// each write leaves the index with FTS5's usermerge at 4 (its default,
// Ada's), at 2 (fewer segments, and a merge debt after a bulk import: the
// pairs FTS5's own merge left) and at 16 (the step then merges only
// sixteen segments of a level: about as FTS5 alone would), with the CPU a
// document's write took (the documents made beforehand).
//
//	ADA_BENCH_SIZES=1000,100000 go test -tags goolm,sqlite_fts5 -run '^$' -bench KeywordSegments ./storage
func BenchmarkKeywordSegments(b *testing.B) {
	for _, n := range benchSizes(b, "ADA_BENCH_SIZES", 1000) {
		for _, merge := range []int{16, 4, 2} {
			ctx := context.Background()
			db, err := Open(ctx, b.TempDir()+"/ada.db")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := db.write.ExecContext(ctx, "INSERT INTO documents_fts (documents_fts, rank) VALUES ('usermerge', ?)", merge); err != nil {
				b.Fatal(err)
			}
			texts := scaleCorpusOf(n+200, 4000)
			docs := make([]core.Document, n)
			for i := range docs {
				docs[i] = memoryDoc(texts[i], core.ScopeGlobal, 3)
			}
			cpu := storagetest.ProcessCPU()
			for start := 0; start < n; start += 100 {
				if err := db.Put(ctx, docs[start:min(start+100, n)]...); err != nil {
					b.Fatal(err)
				}
			}
			write := time.Duration((storagetest.ProcessCPU() - cpu) / int64(n))
			queries := texts[n:]
			b.Run(fmt.Sprintf("%d/usermerge=%d", n, merge), func(b *testing.B) {
				var took []time.Duration
				for i := 0; b.Loop(); i++ {
					start := time.Now()
					if _, err := db.KeywordSearch(ctx, core.KeywordQuery{Filter: core.Filter{Type: core.DocMemory}, Text: queries[i%len(queries)], K: 40}); err != nil {
						b.Fatal(err)
					}
					took = append(took, time.Since(start))
				}
				slices.Sort(took)
				b.ReportMetric(float64(keywordSegments(b, db)), "segments")
				b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(write.Microseconds()), "write-cpu-µs/doc")
			})
			db.Close()
		}
	}
}
