// Command adabench measures Ada's vector search (storage.DB.Search) against
// a plain, untuned sqlite-vec vec0 cosine table, side by side on the same
// vectors and queries, and prints a table: search latency (p50, p99), insert
// throughput and recall@k against an exact brute-force scan.
//
//	go run ./cmd/adabench [-sizes 10000,100000] [-queries 200] [-data sentences,clusters]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

type config struct {
	sizes    []int
	queries  int
	warmup   int
	block    int
	batch    int
	k        int
	data     []string
	dir      string
	noSelect bool
}

func main() {
	var c config
	var sizes, data string
	flag.StringVar(&sizes, "sizes", "10000,100000", "comma-separated numbers of stored documents")
	flag.IntVar(&c.queries, "queries", 200, "measured queries per engine and size")
	flag.IntVar(&c.warmup, "warmup", 10, "unmeasured warm-up queries per engine and size")
	flag.IntVar(&c.block, "block", 1, "queries an engine runs before the other takes its turn")
	flag.IntVar(&c.batch, "batch", 100, "documents per insert transaction (one Put call)")
	flag.IntVar(&c.k, "k", 10, "neighbours per query")
	flag.StringVar(&data, "data", "sentences,clusters", "datasets: sentences (hash embedder), clusters (Gaussian)")
	flag.StringVar(&c.dir, "dir", "", "directory for the databases (default: a temporary one, removed afterwards)")
	flag.BoolVar(&c.noSelect, "no-selective", false, "skip the 1%-selective filter rows")
	flag.Parse()
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 100 {
			fmt.Fprintf(os.Stderr, "adabench: -sizes: %q is not a size of at least 100\n", s)
			os.Exit(2)
		}
		if len(c.sizes) > 0 && n <= c.sizes[len(c.sizes)-1] {
			fmt.Fprintln(os.Stderr, "adabench: -sizes must be increasing")
			os.Exit(2)
		}
		c.sizes = append(c.sizes, n)
	}
	c.data = strings.Split(data, ",")
	if err := run(context.Background(), c); err != nil {
		fmt.Fprintln(os.Stderr, "adabench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, c config) error {
	start := time.Now()
	dir := c.dir
	if dir == "" {
		d, err := os.MkdirTemp("", "adabench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	vecVersion, sqliteVersion, err := versions()
	if err != nil {
		return err
	}
	fmt.Printf("machine: %d CPUs, %s, %s %s/%s, load average at start %s\n",
		runtime.NumCPU(), cpuModel(), runtime.Version(), runtime.GOOS, runtime.GOARCH, loadAvg())
	fmt.Printf("sqlite %s, sqlite-vec %s as shipped (default cgo flags: no AVX, no POPCNT)\n", sqliteVersion, vecVersion)
	fmt.Printf(`%d dims, k=%d, %d queries per engine after %d warm-up ones, the same for both engines, taking turns every %d
data:    sentences = hash embedder over generated sentences (Zipf over 4000 words); queries: reworded stored ones, fresh ones
         clusters  = unit Gaussian vectors around 2000 topics, shared offset, power-law spectrum; queries: noisy stored ones, fresh ones
engines: ada Search = storage.DB.Search filtered to type memory (binary-code KNN, exact cosine rescoring), and alone
                      to a scope of 1%% of the documents, and to the turns' conversation when the memories are 1%%
         plain vec0 cosine = vec0(embedding float[768] distance_metric=cosine) queried with MATCH ... AND k = %d
insert:  rate while growing the store to that size, %d documents per transaction (storage.DB.Put for ada), vectors precomputed
restart: the store closed and opened again: Open's time (then it serves), and until its vector index was loaded
recall:  share of the results that are among the exact %d nearest of a brute-force scan (ties count)
`, dimensions, c.k, c.queries, c.warmup, c.block, c.k, c.batch, c.k)
	var rows []result
	maxN := c.sizes[len(c.sizes)-1]
	for _, name := range c.data {
		t0 := time.Now()
		var d dataset
		switch strings.TrimSpace(name) {
		case "sentences":
			d = sentences(maxN, c.queries, 1)
		case "clusters":
			d = clusters(maxN, c.queries, 1)
		default:
			return fmt.Errorf("unknown dataset %q", name)
		}
		fmt.Fprintf(os.Stderr, "%s: %d vectors and %d queries generated in %v\n", d.name, maxN, c.queries, time.Since(t0).Round(time.Millisecond))
		if d.name == "sentences" {
			fmt.Printf("hash embedder: %.0f texts/s on one goroutine (sentences of 6 to 18 words)\n", embedRate(d.texts[:min(len(d.texts), 5000)]))
		}
		r, err := benchDataset(ctx, c, d, dir)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}
	fmt.Println()
	printTable(rows, c.k)
	fmt.Printf("\nload average at end %s; total run time %v\n", loadAvg(), time.Since(start).Round(time.Second))
	return nil
}

// result is one line of the table.
type result struct {
	data, engine, filter string
	n                    int
	p50, p99             time.Duration
	insertRate, recall   float64
	// open and loaded: a restart's Open, and until its index was loaded.
	open, loaded time.Duration
}

func printTable(rows []result, k int) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "data\tdocs\tfilter\tengine\tp50 ms\tp99 ms\tinsert docs/s\trecall@%d\trestart: open ms\tindex loaded ms\t\n", k)
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%.2f\t%.2f\t%s\t%.3f\t%s\t%s\t\n", r.data, r.n, r.filter, r.engine,
			ms(r.p50), ms(r.p99), orDash(r.insertRate, "%.0f"), r.recall, orDash(ms(r.open), "%.0f"), orDash(ms(r.loaded), "%.0f"))
	}
	w.Flush()
}

// orDash formats v, or a dash for a measure the row does not have.
func orDash(v float64, format string) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	return strings.Join(f[:min(3, len(f))], " ")
}
