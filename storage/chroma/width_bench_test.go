package chroma

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
	"github.com/ada-chat/ada/storage/vecindex"
)

// BenchmarkSearchWidth is where docs/operators.md's "Chroma's settings and
// what they cost" comes from: on a store of ADA_CHROMA_BENCH_DOCS
// documents (default 10000; one in ten a memory, the rest turns), for
// each HNSW search width (hnsw:search_ef 100, Chroma's default; 200; 400,
// Ada's), set on the collection and applied by restarting the server, it
// measures recall@10 against an exact scan and p50 per query, of Chroma's
// query without a filter, with the memories' where clause, and of Ada's
// Search with that filter without the clause (searchWide, the memories
// being a tenth of the store); and, once, the server's resident memory, its data directory's
// size and the seeding rate (Puts of 100), which the width does not
// change.
//
//	ADA_CHROMA_BENCH_DOCS=100000 go test -run '^$' -bench SearchWidth -benchtime 1x -timeout 60m ./storage/chroma
func BenchmarkSearchWidth(b *testing.B) {
	ctx := context.Background()
	srv := storagetest.StartChroma(b)
	t0 := time.Now()
	s, w, docs := seedBench(b, srv, "width", 10)
	seeded := time.Since(t0)
	const nq, k = 100, 10
	memF := core.Filter{Type: core.DocMemory}
	var memories []core.Document
	for _, d := range docs {
		if d.Meta.Type == core.DocMemory {
			memories = append(memories, d)
		}
	}
	queries := make([][]float32, nq)
	exactAll, exactMem := make([][]string, nq), make([][]string, nq)
	for i := range queries {
		queries[i] = embed.HashVector(strings.Join(w.Sentence(5, 12), " "))
		exactAll[i], exactMem[i] = exactTop(queries[i], docs, k), exactTop(queries[i], memories, k)
	}
	rss, disk := processRSS(srv.PID()), dirSize(srv.Dir())
	var once sync.Once
	b.Run("widths", func(b *testing.B) {
		once.Do(func() {
			fmt.Printf("\nChroma 1.0's HNSW search width, %d documents (%d memories), %d queries, k %d, load average %s\n",
				len(docs), len(memories), nq, k, loadAverage())
			fmt.Printf("seeded in %.0f s (%.0f documents/s, Puts of 100); server RSS %.0f MB, data directory %.0f MB\n",
				seeded.Seconds(), float64(len(docs))/seeded.Seconds(), float64(rss)/(1<<20), float64(disk)/(1<<20))
			fmt.Printf("%-10s | %-28s | %-28s | %-28s\n", "ef_search", "query, no filter", "query, memories' where", "Ada's Search, memories")
			for _, ef := range []int{100, 200, hnswSearchEF} {
				if err := s.c.setSearchWidth(ctx, s.docs, ef); err != nil {
					b.Fatal(err)
				}
				srv.Stop()
				srv.Start()
				if got := collectionEF(b, s.c, s.c.db+"/collections/"+docsName); got != ef {
					b.Fatalf("ef_search %d after the restart, want %d", got, ef)
				}
				// The wide search whatever the memories number (at 10k they
				// are 1,000, where Ada keeps the where clause), beside
				// the where clause's query: what wideMinDocs rests on.
				s.shares, s.wideMin = &filterShares{}, 0
				cells := []func(q []float32) ([]string, error){
					func(q []float32) ([]string, error) { r, err := s.c.query(ctx, s.docs, q, k, nil); return r.IDs, err },
					func(q []float32) ([]string, error) {
						r, err := s.c.query(ctx, s.docs, q, k, whereOf(memF))
						return r.IDs, err
					},
					func(q []float32) ([]string, error) {
						hits, err := s.Search(ctx, core.VectorQuery{Vector: q, K: k, Filter: memF})
						ids := make([]string, len(hits))
						for i, h := range hits {
							ids[i] = h.ID
						}
						return ids, err
					},
				}
				fmt.Printf("%-10d", ef)
				for c, cell := range cells {
					exact := exactAll
					if c > 0 {
						exact = exactMem
					}
					var took []time.Duration
					found := 0
					for i := -10; i < nq; i++ { // ten to warm the index up
						q := queries[(i+nq)%nq]
						start := time.Now()
						ids, err := cell(q)
						if err != nil {
							b.Fatal(err)
						}
						if i >= 0 {
							took = append(took, time.Since(start))
							for _, id := range ids {
								if slices.Contains(exact[i], id) {
									found++
								}
							}
						}
					}
					slices.Sort(took)
					fmt.Printf(" | recall %.3f, p50 %6.1f ms   ", float64(found)/float64(nq*k), ms(took[len(took)/2]))
				}
				fmt.Println()
			}
		})
	})
}

// exactTop is the ids of the k documents of docs nearest to q.
func exactTop(q []float32, docs []core.Document, k int) []string {
	type hit struct {
		id string
		d  float64
	}
	hits := make([]hit, len(docs))
	for i, d := range docs {
		hits[i] = hit{d.ID, vecindex.CosineDistance(q, d.Embedding)}
	}
	slices.SortFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.id, b.id)) })
	ids := make([]string, 0, k)
	for _, h := range hits[:min(k, len(hits))] {
		ids = append(ids, h.id)
	}
	return ids
}

// processRSS is the resident memory of process pid in bytes (0 unknown).
func processRSS(pid int) int64 {
	data, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// dirSize is the bytes of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
