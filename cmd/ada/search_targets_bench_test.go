package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/storage"
	"github.com/ada-chat/ada/storage/storagetest"
	"github.com/ada-chat/ada/storage/vecindex"
)

// BenchmarkSearchTargets prints the table of issue 12 (search speed): memory
// search p50 and p99 at each size (ADA_BENCH_SIZES, default 1000, 20000,
// 100000) inside the process and over HTTP, in hybrid and vector mode;
// recall@10 of the vector search against an exact scan; insert rates of
// Ada's store and of a plain sqlite-vec vec0 table; a real Chroma server
// over HTTP on the same texts, vectors and queries at ADA_BENCH_CHROMA_SIZE
// (default 20000), measured in turns with Ada; and the share of time per
// stage at the smallest and largest size. Run it with `make bench`.
func BenchmarkSearchTargets(b *testing.B) {
	sizes := benchSizes(b, "ADA_BENCH_SIZES", []int{1000, 20000, 100000})
	chromaAt := benchInt(b, "ADA_BENCH_CHROMA_SIZE", 20000)
	const nq, k, rounds = 200, 10, 3
	corpus := benchCorpus(sizes[len(sizes)-1], nq, 7)
	llm := llmtest.New(b)
	env := testEnv(b, map[string]string{"LLM_BASE_URL": llm.URL(), "LLM_MODEL": "bench", "LOG_LEVEL": "ERROR"})
	ctx := context.Background()
	plain := storagetest.OpenPlainVec0(b, filepath.Join(b.TempDir(), "plain.db"))
	defer plain.Close()
	var chroma *chromaServer
	if slices.Contains(sizes, chromaAt) {
		chroma = startChroma(b)
	}

	fmt.Printf("\nSearch targets (issue 12): memories only, hash embedder, limit %d, %d queries per row after 10 warm-up ones, GOMAXPROCS=%d, load average at start %s\n",
		k, nq, runtime.GOMAXPROCS(0), loadAverage())
	var rows []targetRow
	var stages []stageRow
	from := 0
	for _, n := range sizes {
		db, err := storage.Open(ctx, filepath.Join(env["DATA_DIR"], "ada.db"))
		if err != nil {
			b.Fatal(err)
		}
		if from == 0 {
			if err := db.CheckEmbedder(ctx, embed.HashName); err != nil {
				b.Fatal(err)
			}
		}
		r := targetRow{n: n}
		r.adaInsert, r.plainInsert, r.adaInsertCPU, r.plainInsertCPU = insertsInTurns(from, n,
			func(lo, hi int) { corpus.putAda(b, db, lo, hi) }, func(lo, hi int) { plain.Put(b, lo+1, corpus.vecs[lo:hi]) })
		from = n
		r.recall = adaRecall(b, db, corpus, n, k)
		for _, mode := range []string{core.SearchHybrid, core.SearchVector} {
			opts := core.DefaultOptions()
			opts.SearchMode = mode
			svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}}, opts)
			quiesce()
			lat := measureQueries(nq, func(i int) { searchInProcess(b, svc, corpus.queryText[i], k) })
			r.inProcess = append(r.inProcess, lat)
			if n == sizes[0] || n == sizes[len(sizes)-1] {
				if mode == core.SearchHybrid {
					stages = append(stages, measureStages(b, db, svc, corpus, n, k))
				}
			}
			svc.Close()
		}
		db.Close()
		r.openMS = reopenTime(b, env["DATA_DIR"])
		// Over HTTP: the real program, one per mode, on the same store.
		for _, mode := range []string{core.SearchHybrid, core.SearchVector} {
			e := maps(env, map[string]string{"RAG_SEARCH_MODE": mode})
			ada := startAda(b, "serve", e)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			quiesce()
			adaHTTP := func(i int) { searchOverHTTP(b, client, ada.URL, corpus.queryText[i], "", k) }
			if mode == core.SearchHybrid && chroma != nil && n == chromaAt {
				r.chromaInsert = timedRate(n, func() { chroma.load(b, corpus, n) })
				r.chromaRecall = chromaRecall(b, chroma, corpus, n, k)
				// In turns, a query each, so that a change in the machine's
				// load falls on both alike; three rounds, the median kept.
				var a, c []time.Duration
				for range rounds {
					ra, rc := alternate(nq, adaHTTP, func(i int) { chroma.query(b, corpus.queryText[i], k) })
					a, c = append(a, ra...), append(c, rc...)
				}
				r.http = append(r.http, a)
				r.chroma = c
			} else {
				r.http = append(r.http, measureQueries(nq, adaHTTP))
			}
			client.CloseIdleConnections()
			ada.stop()
		}
		rows = append(rows, r)
		fmt.Fprintf(os.Stderr, "search targets: %d memories measured\n", n)
	}
	printTargets(rows, k)
	printStages(stages)
	fmt.Printf("load average at end %s\n", loadAverage())
}

// targetRow is one size's measurements; inProcess and http hold the
// hybrid then the vector mode.
type targetRow struct {
	n                                    int
	inProcess, http                      [][]time.Duration
	chroma                               []time.Duration
	recall, chromaRecall                 float64
	adaInsert, plainInsert, chromaInsert float64
	adaInsertCPU, plainInsertCPU         float64 // µs of CPU per document
	openMS                               float64
}

func printTargets(rows []targetRow, k int) {
	fmt.Printf("\n%-8s | %-23s | %-23s | %-23s | %-16s | %-9s | %-30s | %s\n", "memories", "hybrid, in process", "hybrid, HTTP",
		"vector, in process / HTTP", "Chroma 1.0, HTTP", fmt.Sprintf("recall@%d", k), "inserts/s: ada, plain vec0, Chroma", "open")
	fmt.Printf("%-8s | %-23s | %-23s | %-23s | %-16s | %-9s | %-30s | %s\n", "", "p50 / p99 ms", "p50 / p99 ms", "p50 ms", "p50 ms (Ada/Chroma)", "ada (Chroma)", "(CPU µs/doc: ada, vec0)", "ms")
	for _, r := range rows {
		chroma, chromaRecall, chromaInsert := "—", "", "—"
		if r.chroma != nil {
			chroma = fmt.Sprintf("%.2f (%.2f×)", msf(pct(r.chroma, 50)), float64(pct(r.http[0], 50))/float64(pct(r.chroma, 50)))
			chromaRecall = fmt.Sprintf(" (%.3f)", r.chromaRecall)
			chromaInsert = fmt.Sprintf("%.0f", r.chromaInsert)
		}
		fmt.Printf("%-8d | %-23s | %-23s | %-23s | %-16s | %-9s | %-30s | %.0f\n", r.n,
			fmt.Sprintf("%.2f / %.2f", msf(pct(r.inProcess[0], 50)), msf(pct(r.inProcess[0], 99))),
			fmt.Sprintf("%.2f / %.2f", msf(pct(r.http[0], 50)), msf(pct(r.http[0], 99))),
			fmt.Sprintf("%.2f / %.2f", msf(pct(r.inProcess[1], 50)), msf(pct(r.http[1], 50))),
			chroma, fmt.Sprintf("%.3f%s", r.recall, chromaRecall),
			fmt.Sprintf("%.0f, %.0f, %s (%.0f, %.0f)", r.adaInsert, r.plainInsert, chromaInsert, r.adaInsertCPU, r.plainInsertCPU), r.openMS)
	}
	fmt.Println("targets: 1k ≤ 1 ms in process, ≤ 2 ms over HTTP; 20k ≤ Chroma (ratio ≤ 1.0); 100k ≤ 15 ms hybrid, ≤ 5 ms vector; recall ≥ 0.95; inserts ≥ plain vec0")
	fmt.Println("inserts: 100 documents per transaction (Put; one INSERT each for vec0; one add call for Chroma), vectors precomputed, Ada and vec0 in turns of 1,000; open: storage.Open with its code index load")
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// benchSizes parses a comma-separated list of increasing sizes.
func benchSizes(b *testing.B, name string, def []int) []int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	var out []int
	for _, s := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 100 || (len(out) > 0 && n <= out[len(out)-1]) {
			b.Fatalf("%s: %q: want increasing sizes of at least 100", name, v)
		}
		out = append(out, n)
	}
	return out
}

// benchInt is the number the environment variable name gives, else def.
func benchInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		b.Fatalf("%s: %q: want a number", name, v)
	}
	return n
}

// corpus is the bench's memories and queries. Texts are sentences of words
// drawn with a Zipf law from a vocabulary of pseudo-words and common
// English ones, as in real text; half the queries reword a stored text,
// half are fresh sentences.
type corpus struct {
	texts     []string
	vecs      [][]float32
	queryText []string
	queries   [][]float32
}

func benchCorpus(n, nq int, seed uint64) *corpus {
	rng := rand.New(rand.NewPCG(seed, 12))
	w := storagetest.NewWords(rng, benchWords, 4000)
	sentence := w.Sentence
	c := &corpus{}
	for range n {
		t := strings.Join(sentence(6, 18), " ")
		c.texts, c.vecs = append(c.texts, t), append(c.vecs, embed.HashVector(t))
	}
	for i := range nq {
		words := sentence(3, 10)
		if i%2 == 0 {
			words = strings.Fields(c.texts[rng.IntN(n)])
			for range 1 + len(words)/5 {
				words[rng.IntN(len(words))] = w.Word()
			}
		}
		t := strings.Join(words, " ")
		c.queryText, c.queries = append(c.queryText, t), append(c.queries, embed.HashVector(t))
	}
	return c
}

// benchIDPrefix makes a text's index its document id, in the doc-<uuid> form.
const benchIDPrefix = "doc-00000000-0000-4000-8000-"

func (c *corpus) id(i int) string { return fmt.Sprintf("%s%012d", benchIDPrefix, i) }

func indexOf(id string) int {
	i, _ := strconv.Atoi(strings.TrimPrefix(id, benchIDPrefix))
	return i
}

// putAda stores texts [from, to) as global memories, 100 per Put, in
// either backend.
func (c *corpus) putAda(b *testing.B, db core.DocumentStore, from, to int) {
	ts := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	batch := make([]core.Document, 0, 100)
	for i := from; i < to; i++ {
		batch = append(batch, core.Document{ID: c.id(i), Text: c.texts[i], Embedding: c.vecs[i],
			Meta: core.Metadata{Type: core.DocMemory, Timestamp: ts.Add(time.Duration(i) * time.Second),
				Source: core.SourceImport, Scope: core.ScopeGlobal, Importance: 1 + i%5}})
		if len(batch) == cap(batch) || i == to-1 {
			if err := db.Put(context.Background(), batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

// insertsInTurns inserts documents [from, to) into Ada (ada) and the plain
// vec0 table (plain) in turns of 1,000, so that a change in the machine's
// load falls on both alike, and returns the rates of each and their CPU
// time (the process's, user and system) per document, in µs.
func insertsInTurns(from, to int, ada, plain func(lo, hi int)) (adaRate, plainRate, adaCPU, plainCPU float64) {
	var adaT, plainT time.Duration
	var adaC, plainC int64
	for lo := from; lo < to; lo += 1000 {
		hi := min(lo+1000, to)
		for _, e := range []struct {
			f   func(lo, hi int)
			t   *time.Duration
			cpu *int64
		}{{ada, &adaT, &adaC}, {plain, &plainT, &plainC}} {
			c0, t0 := storagetest.ProcessCPU(), time.Now()
			e.f(lo, hi)
			*e.t += time.Since(t0)
			*e.cpu += storagetest.ProcessCPU() - c0
		}
	}
	n := float64(to - from)
	return n / adaT.Seconds(), n / plainT.Seconds(), float64(adaC) / n / 1e3, float64(plainC) / n / 1e3
}

func timedRate(n int, f func()) float64 {
	t0 := time.Now()
	f()
	return float64(n) / time.Since(t0).Seconds()
}

// reopenTime is how long storage.Open takes on the store in dir, in ms.
func reopenTime(b *testing.B, dir string) float64 {
	t0 := time.Now()
	db, err := storage.Open(context.Background(), filepath.Join(dir, "ada.db"))
	if err != nil {
		b.Fatal(err)
	}
	d := time.Since(t0)
	db.Close()
	return msf(d)
}

// quiesce finishes the garbage collection the bench's own setup started
// (the corpus: 300 MB of vectors at 100k), so that it does not run during
// the queries timed next and slow them.
func quiesce() {
	runtime.GC()
}

// measureQueries runs 10 warm-up queries, then nq, and returns their times.
func measureQueries(nq int, f func(i int)) []time.Duration {
	for i := range 10 {
		f(i % nq)
	}
	out := make([]time.Duration, nq)
	for i := range out {
		t0 := time.Now()
		f(i)
		out[i] = time.Since(t0)
	}
	return out
}

// alternate runs each query on a then c, after a warm-up of both.
func alternate(nq int, a, c func(i int)) (ta, tc []time.Duration) {
	for i := range 10 {
		a(i % nq)
		c(i % nq)
	}
	for i := range nq {
		first, second, tf, ts := a, c, &ta, &tc
		if i%2 == 1 { // who goes first changes too
			first, second, tf, ts = c, a, &tc, &ta
		}
		t0 := time.Now()
		first(i)
		t1 := time.Now()
		second(i)
		*tf, *ts = append(*tf, t1.Sub(t0)), append(*ts, time.Since(t1))
	}
	return ta, tc
}

func searchInProcess(b *testing.B, svc *core.Service, text string, k int) []core.Memory {
	page, err := svc.MemoryPage(context.Background(), core.MemoryQuery{Text: text, Limit: k})
	items := page.Items
	if err != nil {
		b.Fatal(err)
	}
	return items
}

// searchOverHTTP is GET /v1/memory?search=…&limit=k (&scope=… when
// given), the body read and decoded as a client would.
func searchOverHTTP(tb testing.TB, client *http.Client, base, text, scope string, k int) []core.Memory {
	q := url.Values{"search": {text}, "limit": {strconv.Itoa(k)}}
	if scope != "" {
		q.Set("scope", scope)
	}
	resp, err := client.Get(base + "/v1/memory?" + q.Encode())
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct{ Items []core.Memory }
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil || resp.StatusCode != 200 {
		tb.Fatalf("memory search: status %d, %v", resp.StatusCode, err)
	}
	return page.Items
}

// adaRecall is the share of the vector search's k results that are among
// the exact k nearest of the first n texts (ties count).
func adaRecall(b *testing.B, db core.VectorSearcher, c *corpus, n, k int) float64 {
	var sum float64
	for qi, q := range c.queries {
		hits, err := db.Search(context.Background(), core.VectorQuery{
			Filter: core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}}, Vector: q, K: k})
		if err != nil {
			b.Fatal(err)
		}
		ids := make([]int, len(hits))
		for i, h := range hits {
			ids[i] = indexOf(h.ID)
		}
		sum += recallOf(c, n, qi, k, ids)
	}
	return sum / float64(len(c.queries))
}

// recallOf scores got, indexes into the corpus, against an exact scan.
func recallOf(c *corpus, n, qi, k int, got []int) float64 {
	dists := make([]float64, n)
	for i := range n {
		dists[i] = vecindex.CosineDistance(c.queries[qi], c.vecs[i])
	}
	sorted := slices.Clone(dists)
	slices.Sort(sorted)
	kth := sorted[min(k, n)-1]
	hits := 0
	for _, i := range got[:min(k, len(got))] {
		if dists[i] <= kth+1e-6 {
			hits++
		}
	}
	return float64(hits) / float64(k)
}

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	return strings.Join(f[:min(3, len(f))], " ")
}

func maps(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
