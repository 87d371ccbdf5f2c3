package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
)

// evalResult is what one mode scored over every sample.
type evalResult struct {
	Mode string
	// Hits[c][i] sums, over the questions of category c (0 = overall), the
	// share of evidence found in the top Ks[i].
	Hits      map[int][]float64
	Questions map[int]int
	Latencies []time.Duration // one per question
}

func newEvalResult(mode string, nk int) *evalResult {
	r := &evalResult{Mode: mode, Hits: map[int][]float64{}, Questions: map[int]int{}}
	for c := 0; c <= 4; c++ {
		r.Hits[c] = make([]float64, nk)
	}
	return r
}

// Recall is the mean recall@Ks[i] of category c (0 = overall).
func (r *evalResult) Recall(c, i int) float64 {
	if r.Questions[c] == 0 {
		return 0
	}
	return r.Hits[c][i] / float64(r.Questions[c])
}

// Percentile is the nearest-rank p-th percentile of the search latency.
func (r *evalResult) Percentile(p float64) time.Duration { return percentile(r.Latencies, p) }

// percentile is the nearest-rank p-th percentile of ds (0 for none).
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	i := int(float64(len(sorted))*p/100+0.999999) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// evalRun runs the benchmark: each sample in its own fresh store, ingested
// once, then asked in every mode.
type evalRun struct {
	cfg    *config.Config
	log    *slog.Logger
	modes  []string
	ks     []int
	stderr io.Writer
	// embedder is the name of the embedder used, once run has started.
	embedder string
}

func (e *evalRun) run(ctx context.Context, samples []evalSample) ([]*evalResult, error) {
	dir, err := os.MkdirTemp("", "ada-eval-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	emb, err := newEmbedder(e.cfg, &http.Client{})
	if err != nil {
		return nil, err
	}
	e.embedder = emb.Name()
	results := make([]*evalResult, len(e.modes))
	for i, m := range e.modes {
		results[i] = newEvalResult(m, len(e.ks))
	}
	for i, s := range samples {
		path := filepath.Join(dir, fmt.Sprintf("sample-%d", i+1), "ada.db")
		if err := e.runSample(ctx, path, emb, s, results); err != nil {
			return nil, fmt.Errorf("sample %s: %w", s.ID, err)
		}
	}
	return results, nil
}

// runSample ingests one sample as one conversation and asks its questions in
// every mode.
func (e *evalRun) runSample(ctx context.Context, path string, emb core.Embedder, s evalSample, results []*evalResult) error {
	db, drop, err := openEvalStore(ctx, e.cfg, path)
	if err != nil {
		return err
	}
	defer drop()
	if err := db.CheckEmbedder(ctx, emb.Name()); err != nil {
		return err
	}
	convID := core.NewConversationID()
	started := time.Now()
	loader := core.New(core.Deps{Store: db, Embedder: emb, Logger: e.log}, coreOptions(e.cfg))
	ids, err := loader.ImportTurns(ctx, convID, s.Turns)
	loader.Close()
	if err != nil {
		return fmt.Errorf("ingesting: %w", err)
	}
	fmt.Fprintf(e.stderr, "eval: %s: %d turns ingested in %s, %d questions\n",
		s.ID, len(ids), time.Since(started).Round(time.Millisecond), len(s.Questions))
	diaOf := make(map[string]string, len(ids))
	for i, id := range ids {
		diaOf[id] = s.DiaIDs[i]
	}
	for _, res := range results {
		opts := coreOptions(e.cfg)
		opts.SearchMode = res.Mode
		svc := core.New(core.Deps{Store: db, Embedder: emb, Logger: e.log}, opts)
		err := e.ask(ctx, svc, convID, diaOf, s.Questions, s.askedAt(), res)
		svc.Close()
		if err != nil {
			return fmt.Errorf("%s search: %w", res.Mode, err)
		}
	}
	return nil
}

// ask asks each question once, at at, with k the largest of the Ks, and
// adds its recall at every k.
func (e *evalRun) ask(ctx context.Context, svc *core.Service, convID string, diaOf map[string]string, qs []evalQuestion, at time.Time, res *evalResult) error {
	kmax := slices.Max(e.ks)
	for _, q := range qs {
		start := time.Now()
		found, err := svc.RecallTurns(ctx, convID, q.Text, at, kmax)
		if err != nil {
			return err
		}
		res.Latencies = append(res.Latencies, time.Since(start))
		ranked := make([]string, len(found))
		for i, f := range found {
			ranked[i] = diaOf[f.ID]
		}
		for i, k := range e.ks {
			r := recallAt(ranked, q.Evidence, k)
			res.Hits[q.Category][i] += r
			res.Hits[0][i] += r
		}
		res.Questions[q.Category]++
		res.Questions[0]++
	}
	return nil
}

// recallAt is the share of evidence found among the first k of ranked.
func recallAt(ranked, evidence []string, k int) float64 {
	top := ranked[:min(k, len(ranked))]
	n := 0
	for _, ev := range evidence {
		if slices.Contains(top, ev) {
			n++
		}
	}
	return float64(n) / float64(len(evidence))
}
