package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
)

// insertCorpus is n sentences of 6 to 18 words drawn with a Zipf law from a
// vocabulary of 4,000 pseudo-words (as in make bench), with their hash
// embeddings, as memories.
func insertCorpus(n int) []core.Document {
	words := storagetest.NewWords(rand.New(rand.NewPCG(7, 12)), nil, 4000)
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	docs := make([]core.Document, n)
	for i := range docs {
		text := strings.Join(words.Sentence(6, 18), " ")
		docs[i] = core.Document{ID: fmt.Sprintf("doc-00000000-0000-4000-8000-%012d", i), Text: text, Embedding: embed.HashVector(text),
			Meta: core.Metadata{Type: core.DocMemory, Timestamp: ts.Add(time.Duration(i) * time.Second),
				Source: core.SourceImport, Scope: core.ScopeGlobal, Importance: 1 + i%5}}
	}
	return docs
}

// BenchmarkPut measures inserts as make bench does (100 memories per Put,
// vectors precomputed) into a store that already holds 10,000; for
// profiling the write path:
//
//	go test -run '^$' -bench 'Put$' -cpuprofile cpu.out ./storage
func BenchmarkPut(b *testing.B) {
	const batch, seeded = 100, 10_000
	ctx, cancel := context.WithCancel(context.Background()) // as a request's
	defer cancel()
	docs := insertCorpus(seeded + 20_000)
	db, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for i := 0; i < seeded; i += batch {
		if err := db.Put(ctx, docs[i:i+batch]...); err != nil {
			b.Fatal(err)
		}
	}
	// Past the corpus, its texts come again under new ids.
	next := seeded
	put := make([]core.Document, batch)
	b.ResetTimer()
	cpu0 := storagetest.ProcessCPU()
	for b.Loop() {
		for j := range put {
			put[j] = docs[next%len(docs)]
			put[j].ID = fmt.Sprintf("doc-00000000-0000-4000-8000-%012d", next)
			next++
		}
		if err := db.Put(ctx, put...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "docs/s")
	b.ReportMetric(float64(storagetest.ProcessCPU()-cpu0)/float64(b.N*batch)/1e3, "cpu-µs/doc")
}

// BenchmarkPutPlainVec0 is the baseline of BenchmarkPut: the same vectors
// into an untuned vec0 table of float32 vectors, one INSERT each, 100 per
// transaction (as make bench's plain table).
func BenchmarkPutPlainVec0(b *testing.B) {
	const batch = 100
	docs := insertCorpus(30_000)
	plain := storagetest.OpenPlainVec0(b, filepath.Join(b.TempDir(), "plain.db"))
	defer plain.Close()
	vecs := make([][]float32, batch)
	rowid := 0
	b.ResetTimer()
	cpu0 := storagetest.ProcessCPU()
	for b.Loop() {
		for j := range vecs {
			vecs[j] = docs[(rowid+j+1)%len(docs)].Embedding
		}
		plain.Put(b, rowid+1, vecs)
		rowid += batch
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "docs/s")
	b.ReportMetric(float64(storagetest.ProcessCPU()-cpu0)/float64(b.N*batch)/1e3, "cpu-µs/doc")
}
