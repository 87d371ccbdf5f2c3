package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

// scenario is a document mix: which documents are memories, and how the
// result rows are labelled.
type scenario struct {
	name string
	// selective: only 1% of the documents are memories, the rest turns.
	selective bool
	// adaFilter and plainFilter describe the filter each engine applies.
	adaFilter, plainFilter string
}

var scenarios = []scenario{
	{"all", false, "memory", "none (all memories)"},
	{"1pct", true, "memory (1% of docs)", "doc_type column"},
}

func (sc scenario) isMemory(i int) bool { return !sc.selective || i%100 == 0 }

// benchDataset grows one Ada store and one baseline table per scenario
// through the configured sizes and measures both at each size (the
// selective scenario at the largest size only).
func benchDataset(ctx context.Context, c config, d dataset, dir string) ([]result, error) {
	var out []result
	for _, sc := range scenarios {
		if sc.selective && c.noSelect {
			continue
		}
		base := filepath.Join(dir, d.name+"-"+sc.name)
		a, err := openAda(ctx, base+"-ada.db")
		if err != nil {
			return nil, err
		}
		p, err := openPlain(base+"-plain.db", sc.selective)
		if err != nil {
			a.Close()
			return nil, err
		}
		sizes := c.sizes
		if sc.selective { // one row shows the partition key
			sizes = sizes[len(sizes)-1:]
		}
		rows, err := growAndMeasure(ctx, c, &d, sc, sizes, a, p)
		a.Close()
		p.Close()
		for _, suffix := range []string{"-ada.db", "-plain.db"} {
			for _, f := range []string{"", "-wal", "-shm"} {
				os.Remove(base + suffix + f)
			}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

func growAndMeasure(ctx context.Context, c config, d *dataset, sc scenario, sizes []int, a *ada, p *plain) ([]result, error) {
	var out []result
	from := 0
	for _, n := range sizes {
		fmt.Fprintf(os.Stderr, "%s, %s: inserting up to %d documents\n", d.name, sc.name, n)
		adaRate, err := insertRate(ctx, a, d, from, n, c.batch, sc.isMemory)
		if err != nil {
			return nil, fmt.Errorf("ada insert: %w", err)
		}
		plainRate, err := insertRate(ctx, p, d, from, n, c.batch, sc.isMemory)
		if err != nil {
			return nil, fmt.Errorf("baseline insert: %w", err)
		}
		from = n
		t0 := time.Now()
		kth := exactTopK(d.vecs[:n], d.queries, c.k, sc.isMemory)
		t1 := time.Now()
		lat, recall, err := measure(ctx, c, d, kth, []engine{a, p})
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(os.Stderr, "  inserts %.0f/s and %.0f/s, exact scan %v, queries %v\n", adaRate, plainRate,
			t1.Sub(t0).Round(time.Millisecond), time.Since(t1).Round(time.Millisecond))
		label := d.name
		open, loaded, err := a.restart(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out,
			result{data: label, n: n, filter: sc.adaFilter, engine: "ada Search", insertRate: adaRate,
				p50: percentile(lat[0], 50), p99: percentile(lat[0], 99), recall: recall[0], open: open, loaded: loaded},
			result{data: label, n: n, filter: sc.plainFilter, engine: "plain vec0 cosine", insertRate: plainRate,
				p50: percentile(lat[1], 50), p99: percentile(lat[1], 99), recall: recall[1]})
		// Filtered searches, ada's alone: a scope of 1% of the
		// documents, and (with turns) the turns' conversation.
		// (The scoped documents are none of the memories when those are
		// 1%.)
		type filtered struct {
			name string
			f    core.Filter
			keep func(int) bool
		}
		fls := []filtered{{"memory, scope of 1%", core.Filter{Type: core.DocMemory, Scopes: []string{benchScope}}, isScoped}}
		if sc.selective {
			fls = []filtered{{"turns of one conversation (99%)", core.Filter{ConversationID: a.conv}, func(i int) bool { return !sc.isMemory(i) }}}
		}
		for _, fl := range fls {
			kth := exactTopK(d.vecs[:n], d.queries, c.k, fl.keep)
			lat, recall, err := measure(ctx, c, d, kth, []engine{a.with(fl.f)})
			if err != nil {
				return nil, err
			}
			out = append(out, result{data: label, n: n, filter: fl.name, engine: "ada Search",
				p50: percentile(lat[0], 50), p99: percentile(lat[0], 99), recall: recall[0]})
		}
	}
	return out, nil
}

func insertRate(ctx context.Context, e engine, d *dataset, from, to, batch int, isMemory func(int) bool) (float64, error) {
	t0 := time.Now()
	if err := e.insert(ctx, d, from, to, batch, isMemory); err != nil {
		return 0, err
	}
	return float64(to-from) / time.Since(t0).Seconds(), nil
}

// measure runs the warm-up, then every query on every engine and returns
// each engine's latencies and mean recall@k. The engines take turns in
// blocks of c.block queries, the first engine changing with each block, so
// that a drift in the machine's load affects both alike. A result counts
// as correct when its exact distance is within the true k nearest (ties
// included).
func measure(ctx context.Context, c config, d *dataset, kth []float64, engines []engine) ([][]time.Duration, []float64, error) {
	for _, e := range engines {
		for _, q := range d.queries[:min(c.warmup, len(d.queries))] {
			if _, err := e.search(ctx, q, c.k); err != nil {
				return nil, nil, err
			}
		}
	}
	lat := make([][]time.Duration, len(engines))
	recall := make([]float64, len(engines))
	for start := 0; start < len(d.queries); start += c.block {
		for j := range engines {
			ei := (start/c.block + j) % len(engines)
			for qi := start; qi < min(start+c.block, len(d.queries)); qi++ {
				q := d.queries[qi]
				t0 := time.Now()
				got, err := engines[ei].search(ctx, q, c.k)
				lat[ei] = append(lat[ei], time.Since(t0))
				if err != nil {
					return nil, nil, err
				}
				hits := 0
				for _, i := range got[:min(len(got), c.k)] {
					if 1-dot(q, d.vecs[i]) <= kth[qi]+1e-6 {
						hits++
					}
				}
				recall[ei] += float64(hits) / float64(c.k) / float64(len(d.queries))
			}
		}
	}
	return lat, recall, nil
}

func percentile(xs []time.Duration, p int) time.Duration {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// embedRate is the hash embedder's throughput on one goroutine.
func embedRate(texts []string) float64 {
	t0 := time.Now()
	for _, t := range texts {
		embed.HashVector(t)
	}
	return float64(len(texts)) / time.Since(t0).Seconds()
}
