package storage

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
)

// BenchmarkKeywordFiltered measures the chat's filtered keyword searches
// (the FAQ, memories, a conversation's turns and summaries) in a store of
// ADA_BENCH_N documents (default 20000) shaped like a chat store's
// (seedChatLike), for a word in 4% of the documents and a rare one; each
// plan is timed, and the one keywordPlanFor chooses is marked. For profiling:
//
//	ADA_BENCH_N=100000 go test -tags goolm,sqlite_fts5 -run '^$' -bench KeywordFiltered ./storage
func BenchmarkKeywordFiltered(b *testing.B) {
	ctx := context.Background()
	db, n := openBenchStore(b)
	convs := seedChatLike(b, db, n)
	conv := convs[len(convs)/2]
	filters := []struct {
		name string
		f    core.Filter
	}{
		{"faq", core.Filter{Type: core.DocFAQ}},
		{"memory", core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}}},
		{"turns", core.Filter{Type: core.DocTurn, ConversationID: conv}},
		{"summaries", core.Filter{Type: core.DocSummary, ConversationID: conv}},
	}
	for _, word := range []string{"broad", "rare"} {
		for _, f := range filters {
			q := core.KeywordQuery{Filter: f.f, Text: word, K: 20}
			chosen := keywordPlan(-1)
			if _, err := db.keywordSearch(ctx, q, func(within, total int, matches int64, limit, k int) keywordPlan {
				chosen = keywordPlanFor(within, total, matches, limit, k)
				return chosen
			}); err != nil {
				b.Fatal(err)
			}
			for _, plan := range []keywordPlan{planOverfetch, planRestrict, planJoin, planPrefilter} {
				name := word + "/" + f.name + "/" + []string{"overfetch", "restrict", "join", "prefilter"}[plan]
				if plan == chosen {
					name += "(chosen)"
				}
				b.Run(name, func(b *testing.B) {
					force := func(int, int, int64, int, int) keywordPlan { return plan }
					for b.Loop() {
						if _, err := db.keywordSearch(ctx, q, force); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}

// scaleEntity is the entity whose scope holds 1% of the scale corpus.
const scaleEntity = "entity:scale"

// scaleCorpus is n memories of 8 to 16 words drawn with a Zipf law from a
// vocabulary of 4,000 words (everyday words first, as issue 39's store),
// every 100th in scaleEntity's scope, the rest global. The same n gives the
// same texts.
func scaleCorpus(n int) []string { return scaleCorpusOf(n, 4000) }

// scaleCorpusOf is scaleCorpus with words drawn from vocab words.
func scaleCorpusOf(n, vocab int) []string {
	words := storagetest.NewWords(rand.New(rand.NewPCG(39, 1)), scaleCommon, vocab)
	texts := make([]string, n)
	for i := range texts {
		texts[i] = strings.Join(words.Sentence(8, 16), " ")
	}
	return texts
}

var scaleCommon = strings.Fields("the of and to in friday test her on at meeting project coffee weather music train doctor birthday garden invoice")

// openScaleStore is a store of n scale-corpus memories: in dir (ADA_BENCH_DIR,
// kept between runs so that a million is written once) or a temporary one.
func openScaleStore(b *testing.B, n int) (*DB, []string) {
	return openCorpusStore(b, "keyword", scaleCorpus(n))
}

// openCorpusStore is a store of texts as scale-corpus memories, in the
// file name-n.db (see openScaleStore).
func openCorpusStore(b *testing.B, name string, texts []string) (*DB, []string) {
	ctx := context.Background()
	n := len(texts)
	dir := os.Getenv("ADA_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	db, err := Open(ctx, filepath.Join(dir, fmt.Sprintf("%s-%d.db", name, n)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	var have int
	if err := db.read.QueryRowContext(ctx, "SELECT count(*) FROM documents").Scan(&have); err != nil {
		b.Fatal(err)
	}
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	batch := make([]core.Document, 0, 1000)
	for i := have; i < n; i++ {
		scope := core.ScopeGlobal
		if i%100 == 0 {
			scope = scaleEntity
		}
		batch = append(batch, core.Document{ID: fmt.Sprintf("doc-00000000-0000-4000-8000-%012d", i), Text: texts[i],
			Embedding: embed.HashVector(texts[i]), Meta: core.Metadata{Type: core.DocMemory, Timestamp: ts.Add(time.Duration(i) * time.Second),
				Source: core.SourceImport, Scope: scope, Importance: 1 + i%5}})
		if len(batch) == cap(batch) || i == n-1 {
			if err := db.Put(ctx, batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return db, texts
}

// BenchmarkKeywordScale measures the keyword search as the store grows
// (ADA_BENCH_SIZES, comma-separated, default 20000,100000; 1000000 with
// ADA_BENCH_DIR set to keep its store): queries of a stored memory's full
// text, of its two rarest words, of its two broadest words short of
// common, and of everyday words only, over the whole store and within the
// 1% entity scope (the memory search's filters). found/op
// is the share of queries whose memory is in the top 10, cpu-ms/op the
// process's CPU time per search.
//
//	ADA_BENCH_SIZES=100000,1000000 ADA_BENCH_DIR=/tmp/kw go test -run '^$' -bench KeywordScale -benchtime 200x ./storage
func BenchmarkKeywordScale(b *testing.B) {
	sizes := benchSizes(b, "ADA_BENCH_SIZES", 20_000, 100_000)
	ctx := context.Background()
	for _, n := range sizes {
		db, texts := openScaleStore(b, n)
		rng := rand.New(rand.NewPCG(uint64(n), 2))
		const nq = 200
		picks := make([]int, nq)
		for i := range picks {
			picks[i] = rng.IntN(n)
		}
		common := strings.Join(scaleCommon[4:9], " ")
		global := core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}}
		scoped := core.Filter{Type: core.DocMemory, Scopes: []string{scaleEntity}}
		for _, c := range []struct {
			name  string
			f     core.Filter
			query func(i int) string
		}{
			{"full", core.Filter{}, func(i int) string { return texts[picks[i]] }},
			{"rarest2", core.Filter{}, func(i int) string { return rarestTwo(b, db, texts[picks[i]]) }},
			{"common", core.Filter{}, func(int) string { return common }},
			{"broad2", core.Filter{}, func(i int) string { return broadestTwo(b, db, texts[picks[i]], n) }},
			{"full-global", global, func(i int) string { return texts[picks[i]] }},
			{"full-entity", scoped, func(i int) string { return texts[picks[i]/100*100] }},
			{"common-entity", scoped, func(int) string { return common }},
		} {
			queries, targets := make([]string, nq), make([]string, nq)
			for i := range queries {
				queries[i] = c.query(i)
				if strings.HasPrefix(c.name, "full-entity") {
					targets[i] = texts[picks[i]/100*100]
				} else {
					targets[i] = texts[picks[i]]
				}
			}
			b.Run(fmt.Sprintf("%d/%s", n, c.name), func(b *testing.B) {
				i, found, asked := 0, 0, 0
				cpu0 := storagetest.ProcessCPU()
				for b.Loop() {
					hits, err := db.KeywordSearch(ctx, core.KeywordQuery{Filter: c.f, Text: queries[i%nq], K: 10})
					if err != nil {
						b.Fatal(err)
					}
					if c.name != "common" && c.name != "common-entity" {
						asked++
						for _, h := range hits {
							if h.Text == targets[i%nq] {
								found++
								break
							}
						}
					}
					i++
				}
				// CPU time per search: wall time on a shared machine counts
				// the other processes' turns too.
				b.ReportMetric(float64(storagetest.ProcessCPU()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
				if asked > 0 {
					b.ReportMetric(float64(found)/float64(asked), "found/op")
				}
			})
		}
	}
}

// rarestTwo is the two words of text in the fewest documents.
func rarestTwo(b *testing.B, db *DB, text string) string {
	ws := wordsByCount(b, db, text)
	return strings.Join(ws[:min(2, len(ws))], " ")
}

// broadestTwo is the two words of text in the most documents short of 5%
// of n (commonShare): words everyday enough to be in thousands of
// documents in a large store, yet searched.
func broadestTwo(b *testing.B, db *DB, text string, n int) string {
	ws := wordsByCount(b, db, text)
	ws = slices.DeleteFunc(ws, func(w string) bool { return countOf(b, db, w) >= int(commonLimit(int64(n))) })
	return strings.Join(ws[max(0, len(ws)-2):], " ")
}

// wordsByCount is text's keyword terms, in the fewest documents first.
func wordsByCount(b *testing.B, db *DB, text string) []string {
	ws := KeywordTerms(text)
	slices.SortStableFunc(ws, func(x, y string) int { return cmp.Compare(countOf(b, db, x), countOf(b, db, y)) })
	return ws
}

func countOf(b *testing.B, db *DB, word string) int {
	var n int
	if err := db.read.QueryRow(`SELECT count(*) FROM documents_fts WHERE documents_fts MATCH ?`, `"`+word+`"`).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// benchSizes reads the comma-separated sizes of env, or gives def.
func benchSizes(b *testing.B, env string, def ...int) []int {
	s := os.Getenv(env)
	if s == "" {
		return def
	}
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			b.Fatal(err)
		}
		sizes = append(sizes, n)
	}
	return sizes
}
