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
	"time"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
)

const evalUsage = `usage: ada eval chat FILE [--json] [--recall-k default,10]
       ada eval retrieval FILE [--json] [--mode vector|keyword|hybrid|all] [--k 1,5,10,20,50]

Both read a conversation benchmark in the LoCoMo JSON format, one long
conversation per sample, each in a fresh temporary store, and ask every
question of categories 1-4, whose evidence turns are labelled. The embedder
is the configured one (EMBED_BACKEND), as are the RAG_* settings.

chat replays each conversation through the chat itself (speaker_a's lines
are the prompts, a scripted model answers with speaker_b's; its summaries
and extractions add nothing), then builds each question's prompt exactly as
a chat would, and prints the share of the evidence lines that are in it per
category, with the prompt's size, for each recall_k ("default" = the
setting). This is what the model would see.

retrieval stores one turn per line and prints recall@k of the chat's turn
recall ranking (the share of a question's evidence in the top k) per
category and mode, with the search latency.

flags:
  --json      print one JSON object instead of the tables
  --recall-k  chat: the recall_k values to ask with (default "default,10")
  --mode      retrieval: vector, keyword, hybrid or all (default all)
  --k         retrieval: the cut-offs, comma-separated (default 1,5,10,20,50)`

// evalModes are the modes of --mode all, in the order they are run.
var evalModes = []string{core.SearchVector, core.SearchKeyword, core.SearchHybrid}

// evalArgs are the parsed arguments of `ada eval retrieval`.
type evalArgs struct {
	file  string
	json  bool
	modes []string
	ks    []int
	// settings are chat's recall_k values.
	settings []chatSetting
}

// runEval runs `ada eval <what> ...`: chat or retrieval.
func runEval(ctx context.Context, cfg *config.Config, log *slog.Logger, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && slices.Contains([]string{"help", "--help", "-h"}, args[0]) {
		fmt.Fprintln(stdout, evalUsage)
		return nil
	}
	if len(args) == 0 || (args[0] != "retrieval" && args[0] != "chat") {
		fmt.Fprintln(stderr, evalUsage)
		if len(args) == 0 {
			return errors.New("eval: say what to evaluate: ada eval chat FILE, or ada eval retrieval FILE")
		}
		return fmt.Errorf("eval: unknown evaluation %q (there are: chat, retrieval)", args[0])
	}
	what := args[0]
	a, err := parseEvalArgs(what, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stdout, evalUsage)
		return nil
	}
	if err != nil {
		fmt.Fprintln(stderr, evalUsage)
		return fmt.Errorf("eval %s: %w", what, err)
	}
	samples, st, err := loadLoCoMo(a.file)
	if err != nil {
		return fmt.Errorf("eval %s: %w", what, err)
	}
	if err := warnLoad(stderr, samples, st); err != nil {
		return fmt.Errorf("eval %s: %s: %w", what, a.file, err)
	}
	questions := 0
	for _, s := range samples {
		questions += len(s.Questions)
	}
	summary := func(embedder string) string {
		return fmt.Sprintf("%s: %d samples, %d turns, %d questions of categories 1-4 (skipped %d of category 5, %d without evidence); embedder %s\n\n",
			a.file, len(samples), st.Turns, questions, st.SkippedCategory, st.SkippedNoEvid, embedder)
	}
	if what == "chat" {
		e := &chatEval{cfg: cfg, log: log, settings: a.settings, stderr: stderr}
		results, err := e.run(ctx, samples)
		if err != nil {
			return fmt.Errorf("eval chat: %w", err)
		}
		if a.json {
			return writeChatJSON(stdout, results, e.replay)
		}
		fmt.Fprint(stdout, summary(e.embedder))
		writeChatTables(stdout, results)
		fmt.Fprintf(stdout, "\nreplayed in %s; questions asked in %s\n", e.replay.Round(time.Millisecond), e.asking.Round(time.Millisecond))
		return nil
	}
	e := &evalRun{cfg: cfg, log: log, modes: a.modes, ks: a.ks, stderr: stderr}
	results, err := e.run(ctx, samples)
	if err != nil {
		return fmt.Errorf("eval retrieval: %w", err)
	}
	if a.json {
		return writeEvalJSON(stdout, results, a.ks)
	}
	fmt.Fprint(stdout, summary(e.embedder))
	writeEvalTables(stdout, results, a.ks)
	return nil
}

// parseEvalArgs reads FILE and the flags of evaluation what, in any order.
func parseEvalArgs(what string, args []string) (evalArgs, error) {
	var a evalArgs
	fs := flag.NewFlagSet("ada eval "+what, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // runEval prints the usage once
	fs.BoolVar(&a.json, "json", false, "")
	var mode, ks, recallKs *string
	if what == "chat" {
		recallKs = fs.String("recall-k", "default,10", "")
	} else {
		mode = fs.String("mode", "all", "")
		ks = fs.String("k", "1,5,10,20,50", "")
	}
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
	var err error
	if what == "chat" {
		a.settings, err = parseRecallKs(*recallKs)
		return a, err
	}
	switch {
	case *mode == "all":
		a.modes = evalModes
	case slices.Contains(evalModes, *mode):
		a.modes = []string{*mode}
	default:
		return a, fmt.Errorf("--mode %q: must be vector, keyword, hybrid or all", *mode)
	}
	a.ks, err = parseKs(*ks)
	return a, err
}

// parseRecallKs reads "default,10" into the settings to ask with.
func parseRecallKs(s string) ([]chatSetting, error) {
	var out []chatSetting
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "default" {
			out = append(out, chatSetting{Name: "defaults"})
			continue
		}
		k, err := strconv.Atoi(f)
		if err != nil || k < 0 || k > core.MaxRecallK {
			return nil, fmt.Errorf("--recall-k %q: want \"default\" or whole numbers 0..%d, separated by commas", s, core.MaxRecallK)
		}
		out = append(out, chatSetting{Name: fmt.Sprintf("recall_k=%d", k), RecallK: &k})
	}
	return out, nil
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
