package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/storage/chroma"
)

// locomoDev is the development half of LoCoMo (CC BY-NC 4.0: read from
// the shared folder beside the repository, never copied into it), or the
// file ADA_BENCH_LOCOMO names.
const locomoDev = "../../../shared/bench/locomo/locomo-dev.json"

// BenchmarkBackends prints issue 23's table: the same measurements on the
// embedded store (SQLite + sqlite-vec) and on a real Chroma 1.0 server
// (VECTORDB_URL), each through the real program: memories inserted over
// HTTP (POST /v1/memory, 4 clients, into an empty store) and through the
// store's batched Put (100 a call, the seeding); memory search p50/p99 over
// HTTP at each size (ADA_BENCH_BACKEND_SIZES, default 10000,100000);
// recall@10 of the vector search against an exact scan; the chat's
// overhead (POST /v1/chat − the LLM call alone, instant scripted model);
// and `ada eval retrieval` recall@10, hybrid, on the dev LoCoMo half,
// which is left out, saying so, when the file is absent (ADA_BENCH_LOCOMO
// names another). Run it with
// `make bench`.
func BenchmarkBackends(b *testing.B) {
	sizes := benchSizes(b, "ADA_BENCH_BACKEND_SIZES", []int{10_000, 100_000})
	// Fewer timed searches (searches) than recall queries (nq) and few
	// POSTs and chats: on Chroma a hybrid search took 0.2 s at 1k and
	// 3.4 s at 100k (its keyword candidates), and a chat makes three, so
	// that even so the whole bench took 37 min on a loaded 2-core machine.
	const nq, searches, k, posts, chats = 200, 100, 10, 300, 50
	cp := benchCorpus(sizes[len(sizes)-1], nq, 7)
	llm := llmtest.New(b)
	llm.Instant(true)
	llm.Default(llmtest.Reply{Tokens: []string{"Sure", ", here", " is", " an", " answer."}})
	backends := []*backendRun{{name: "SQLite + sqlite-vec"}}
	if c := startChroma(b); c != nil {
		backends = append(backends, &backendRun{name: "Chroma 1.0 (HTTP)", url: c.url})
	}
	fmt.Printf("\nBackends side by side (issue 23): hash embedder, limit %d, %d timed searches and %d recall queries per size, %d chats, GOMAXPROCS=%d, load average at start %s\n",
		k, searches, nq, chats, runtime.GOMAXPROCS(0), loadAverage())
	for _, bk := range backends {
		bk.bySize = map[int]sizeRun{}
		env := bk.env(b, "bench-posts", llm)
		ada := startAda(b, "serve", env)
		bk.postRate = postMemories(b, ada.URL, cp, posts, 4)
		ada.stop()

		env = bk.env(b, "bench-search", llm)
		from, t0 := 0, time.Now()
		for _, n := range sizes {
			store, closeStore := bk.open(b, env)
			r := sizeRun{putRate: timedRate(n-from, func() { cp.putAda(b, store, from, n) })}
			from = n
			fmt.Fprintf(os.Stderr, "backends: %s, seeded %d memories (%.0f s so far)\n", bk.name, n, time.Since(t0).Seconds())
			r.recall = adaRecall(b, store, cp, n, k)
			closeStore()
			ada := startAda(b, "serve", env)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
			quiesce()
			r.search = measureQueries(searches, func(i int) { searchOverHTTP(b, client, ada.URL, cp.queryText[i], "", k) })
			client.CloseIdleConnections()
			// New conversations without automatic memories, so that the
			// next size's recall counts the corpus only.
			r.llm = measure(chats, func() time.Duration { return directLLMCall(b, llm) })
			r.chat = measure(chats, func() time.Duration { return timeChat(b, ada.URL, map[string]any{"auto_memory": false}) })
			ada.stop()
			bk.bySize[n] = r
			fmt.Fprintf(os.Stderr, "backends: %s, %d memories measured (%.0f s so far)\n", bk.name, n, time.Since(t0).Seconds())
		}
		bk.eval = evalOnLoCoMo(b, bk.url)
	}
	printBackends(backends, sizes, k, posts)
	fmt.Printf("load average at end %s\n", loadAverage())
}

// backendRun is one backend's measurements.
type backendRun struct {
	name     string
	url      string // VECTORDB_URL; empty for SQLite
	postRate float64
	bySize   map[int]sizeRun
	eval     locomoRun
}

type sizeRun struct {
	putRate, recall   float64
	search, llm, chat []time.Duration
}

// env is a fresh instance's settings on the backend; on Chroma, its own
// database there.
func (bk *backendRun) env(b testing.TB, database string, llm *llmtest.Server) map[string]string {
	env := testEnv(b, map[string]string{"LLM_BASE_URL": llm.URL(), "LLM_MODEL": "bench", "LOG_LEVEL": "ERROR"})
	if bk.url != "" {
		env["VECTORDB_URL"] = bk.url + "?database=" + url.QueryEscape(database)
	}
	return env
}

// open opens env's store for seeding, set to the hash embedder.
func (bk *backendRun) open(b testing.TB, env map[string]string) (documentStore, func()) {
	if bk.url == "" {
		db := openSeedStore(b, env["DATA_DIR"])
		return db, func() { db.Close() }
	}
	ctx := context.Background()
	s, err := chroma.Open(ctx, env["VECTORDB_URL"])
	if err != nil {
		b.Fatal(err)
	}
	if err := s.CheckEmbedder(ctx, embed.HashName); err != nil {
		b.Fatal(err)
	}
	return s, func() { s.Close() }
}

// postMemories creates the corpus's first n texts as memories over HTTP,
// one POST each, from workers clients at once, and returns memories/s.
func postMemories(b *testing.B, base string, cp *corpus, n, workers int) float64 {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	defer client.CloseIdleConnections()
	next := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	t0 := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				body, _ := json.Marshal(map[string]any{"text": cp.texts[i]})
				resp, err := client.Post(base+"/v1/memory", "application/json", bytes.NewReader(body))
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode/100 != 2 {
						err = fmt.Errorf("POST /v1/memory: status %d", resp.StatusCode)
					}
				}
				if err != nil {
					errs <- err
					for range next { // drain, so the sender finishes
					}
					return
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	rate := float64(n) / time.Since(t0).Seconds()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	return rate
}

// locomoRun is `ada eval retrieval --mode hybrid --k 10` on the dev half.
type locomoRun struct {
	skipped       string
	recall, p50ms float64
	whole         time.Duration
}

// evalOnLoCoMo runs the command on the backend (VECTORDB_URL vectordb, or
// SQLite when empty), as an operator would.
func evalOnLoCoMo(b *testing.B, vectordb string) locomoRun {
	file := locomoDev
	if v := os.Getenv("ADA_BENCH_LOCOMO"); v != "" {
		file = v
	}
	file, _ = filepath.Abs(file)
	if _, err := os.Stat(file); err != nil {
		return locomoRun{skipped: "no dev LoCoMo file at " + file}
	}
	extra := map[string]string{"LOG_LEVEL": "ERROR"}
	if vectordb != "" {
		extra["VECTORDB_URL"] = vectordb
	}
	t0 := time.Now()
	out, stderr, err := runEvalWithin(b, 30*time.Minute, extra, "retrieval", file, "--mode", "hybrid", "--k", "10", "--json")
	if err != nil {
		b.Fatalf("eval retrieval: %v\n%s", err, stderr)
	}
	var modes map[string]struct {
		Overall struct {
			Recall float64 `json:"recall@10"`
		} `json:"overall"`
		Latency struct {
			P50 float64 `json:"p50"`
		} `json:"latency_ms"`
	}
	if err := json.Unmarshal([]byte(out), &modes); err != nil {
		b.Fatalf("eval retrieval: %v\n%s", err, out)
	}
	h := modes["hybrid"]
	return locomoRun{recall: h.Overall.Recall, p50ms: h.Latency.P50, whole: time.Since(t0)}
}

func printBackends(backends []*backendRun, sizes []int, k, posts int) {
	fmt.Printf("\n%-58s", "metric")
	for _, bk := range backends {
		fmt.Printf(" | %-22s", bk.name)
	}
	fmt.Println()
	row := func(name string, cell func(bk *backendRun) string) {
		fmt.Printf("%-58s", name)
		for _, bk := range backends {
			fmt.Printf(" | %-22s", cell(bk))
		}
		fmt.Println()
	}
	row(fmt.Sprintf("inserts over HTTP, memories/s (%d POSTs, 4 clients)", posts), func(bk *backendRun) string { return fmt.Sprintf("%.0f", bk.postRate) })
	from := 0
	for _, n := range sizes {
		row(fmt.Sprintf("inserts, Put of 100, memories/s (%d → %d)", from, n), func(bk *backendRun) string { return fmt.Sprintf("%.0f", bk.bySize[n].putRate) })
		from = n
	}
	for _, n := range sizes {
		row(fmt.Sprintf("memory search over HTTP, hybrid, p50 / p99 ms, %d", n), func(bk *backendRun) string {
			r := bk.bySize[n]
			return fmt.Sprintf("%.2f / %.2f", msf(pct(r.search, 50)), msf(pct(r.search, 99)))
		})
	}
	for _, n := range sizes {
		row(fmt.Sprintf("recall@%d, vector search vs exact scan, %d", k, n), func(bk *backendRun) string { return fmt.Sprintf("%.3f", bk.bySize[n].recall) })
	}
	for _, n := range sizes {
		row(fmt.Sprintf("chat overhead (chat − LLM call), p50 / p99 ms, %d", n), func(bk *backendRun) string {
			r := bk.bySize[n]
			return fmt.Sprintf("%.2f / %.2f", msf(pct(r.chat, 50)-pct(r.llm, 50)), msf(pct(r.chat, 99)-pct(r.llm, 99)))
		})
	}
	row("eval retrieval, dev LoCoMo, hybrid recall@10", func(bk *backendRun) string {
		if bk.eval.skipped != "" {
			return "skipped"
		}
		return fmt.Sprintf("%.3f", bk.eval.recall)
	})
	row("  its search p50 ms / whole run s", func(bk *backendRun) string {
		if bk.eval.skipped != "" {
			return "—"
		}
		return fmt.Sprintf("%.2f / %.0f", bk.eval.p50ms, bk.eval.whole.Seconds())
	})
	for _, bk := range backends {
		if bk.eval.skipped != "" {
			fmt.Printf("eval retrieval left out on %s: %s (the file is read from ../shared/bench/locomo, never copied)\n", bk.name, bk.eval.skipped)
			break
		}
	}
}
