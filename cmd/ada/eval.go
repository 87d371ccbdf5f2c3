package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
)

const evalUsage = `usage: ada eval retrieval FILE [--json] [--mode vector|keyword|hybrid|all] [--k 1,5,10,20,50]

Measures how well the chat's recall of earlier turns finds the evidence of a
conversation benchmark in the LoCoMo JSON format. Each sample is ingested
into a fresh temporary store as one conversation, every question of
categories 1-4 is asked, and recall@k (the share of a question's evidence
turns in the top k) is printed per category and overall, with the search
latency, for each mode. The embedder is the configured one (EMBED_BACKEND).

flags:
  --json   print one JSON object instead of the tables
  --mode   vector, keyword, hybrid or all (default all)
  --k      the cut-offs, comma-separated (default 1,5,10,20,50)`

// evalModes are the modes of --mode all, in the order they are run.
var evalModes = []string{core.SearchVector, core.SearchKeyword, core.SearchHybrid}

// evalArgs are the parsed arguments of `ada eval retrieval`.
type evalArgs struct {
	file  string
	json  bool
	modes []string
	ks    []int
}

// runEval runs `ada eval <what> ...`; retrieval is the one evaluation.
func runEval(ctx context.Context, cfg *config.Config, log *slog.Logger, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && slices.Contains([]string{"help", "--help", "-h"}, args[0]) {
		fmt.Fprintln(stdout, evalUsage)
		return nil
	}
	if len(args) == 0 || args[0] != "retrieval" {
		fmt.Fprintln(stderr, evalUsage)
		if len(args) == 0 {
			return errors.New("eval: say what to evaluate: ada eval retrieval FILE")
		}
		return fmt.Errorf("eval: unknown evaluation %q (the one there is: retrieval)", args[0])
	}
	a, err := parseEvalArgs(args[1:])
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stdout, evalUsage)
		return nil
	}
	if err != nil {
		fmt.Fprintln(stderr, evalUsage)
		return fmt.Errorf("eval retrieval: %w", err)
	}
	samples, st, err := loadLoCoMo(a.file)
	if err != nil {
		return fmt.Errorf("eval retrieval: %w", err)
	}
	if err := warnLoad(stderr, samples, st); err != nil {
		return fmt.Errorf("eval retrieval: %s: %w", a.file, err)
	}
	e := &evalRun{cfg: cfg, log: log, modes: a.modes, ks: a.ks, stderr: stderr}
	results, err := e.run(ctx, samples)
	if err != nil {
		return fmt.Errorf("eval retrieval: %w", err)
	}
	if a.json {
		return writeEvalJSON(stdout, results, a.ks)
	}
	fmt.Fprintf(stdout, "%s: %d samples, %d turns, %d questions of categories 1-4 (skipped %d of category 5, %d without evidence); embedder %s\n\n",
		a.file, len(samples), st.Turns, results[0].Questions[0], st.SkippedCategory, st.SkippedNoEvid, e.embedder)
	writeEvalTables(stdout, results, a.ks)
	return nil
}

// parseEvalArgs reads FILE and the flags, in any order.
func parseEvalArgs(args []string) (evalArgs, error) {
	var a evalArgs
	fs := flag.NewFlagSet("ada eval retrieval", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // runEval prints the usage once
	fs.BoolVar(&a.json, "json", false, "")
	mode := fs.String("mode", "all", "")
	ks := fs.String("k", "1,5,10,20,50", "")
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return a, err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case len(files) == 0:
		return a, errors.New("no FILE given")
	case len(files) > 1:
		return a, fmt.Errorf("one FILE, not %d: %s", len(files), strings.Join(files, " "))
	}
	a.file = files[0]
	switch {
	case *mode == "all":
		a.modes = evalModes
	case slices.Contains(evalModes, *mode):
		a.modes = []string{*mode}
	default:
		return a, fmt.Errorf("--mode %q: must be vector, keyword, hybrid or all", *mode)
	}
	var err error
	a.ks, err = parseKs(*ks)
	return a, err
}

// parseKs reads "1,5,10" into sorted, distinct, positive cut-offs.
func parseKs(s string) ([]int, error) {
	var ks []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("--k %q: want positive whole numbers separated by commas, like 1,5,10", s)
		}
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return slices.Compact(ks), nil
}

// warnLoad reports on stderr what the file needed repaired or dropped; a
// file with nothing to ask is an error.
func warnLoad(w io.Writer, samples []evalSample, st loadStats) error {
	if n := len(st.UnknownIDs); n > 0 {
		shown := st.UnknownIDs[:min(n, 10)]
		fmt.Fprintf(w, "eval: warning: %d evidence ids match no turn and were ignored: %s\n", n, strings.Join(shown, ", "))
	}
	if st.BadDates > 0 {
		fmt.Fprintf(w, "eval: warning: %d session dates unreadable; those sessions follow the previous one by an hour\n", st.BadDates)
	}
	questions := 0
	for _, s := range samples {
		questions += len(s.Questions)
	}
	if questions == 0 {
		return errors.New("no question of categories 1-4 with evidence to ask")
	}
	return nil
}
