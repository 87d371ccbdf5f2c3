package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/jsonl"
)

const exportUsage = `usage: ada export [--no-vectors] [FILE]

Writes every document of DATA_DIR/ada.db, or of the Chroma server of
VECTORDB_URL when it is set (persona, FAQ entries, memories,
turns, summaries) and every memory's history as JSON Lines to FILE, or to
standard output when FILE is - or not given. Ada may keep running: the export
reads one consistent snapshot through a read-only connection and needs no
lock. A FILE is written under a temporary name and renamed when complete; it
must not exist yet.

  --no-vectors  leave the embeddings out (an eighth of the size; ada import
                re-embeds the texts)

The format is described in docs/operators.md ("Export and import"). ada import
reads it back, into this Ada or another.`

// exportOptions are the arguments of ada export.
type exportOptions struct {
	file      string // "" or "-": standard output
	noVectors bool
}

func parseExportArgs(args []string) (exportOptions, error) {
	var o exportOptions
	fs := flag.NewFlagSet("ada export", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&o.noVectors, "no-vectors", false, "")
	rest, err := parseInterspersed(fs, args)
	switch {
	case err != nil:
		return o, err
	case len(rest) > 1:
		return o, fmt.Errorf("export takes one FILE, got %q", rest)
	case len(rest) == 1:
		o.file = rest[0]
	}
	return o, nil
}

// parseInterspersed parses flags before and after the positional
// arguments, which it returns.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// runExport writes the export to a file or to stdout; the summary goes to
// stdout, or to stderr when stdout carries the export.
func runExport(ctx context.Context, cfg *config.Config, args []string, stdout, stderr io.Writer) error {
	o, err := parseExportArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stdout, exportUsage)
		return nil
	}
	if err != nil {
		return fmt.Errorf("export: %w (see ada export --help)", err)
	}
	start := time.Now()
	snap, closeSnap, err := openExportSource(ctx, cfg, backendOf(cfg), !o.noVectors)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer closeSnap()
	out, summary, commit, err := exportTarget(o.file, stdout, stderr)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	defer commit(false)
	h, err := writeExport(ctx, snap, out, !o.noVectors, newProgress(stderr, "export"))
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := commit(true); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	vectors := "with vectors"
	if o.noVectors {
		vectors = "without vectors"
	}
	where := o.file
	if where == "" || where == "-" {
		where = "standard output"
	}
	fmt.Fprintf(summary, "exported %d documents and %d history entries (embedder %s, %s) to %s in %s\n",
		h.Documents, h.History, cmp.Or(h.Embedder, "none recorded"), vectors, where, time.Since(start).Round(time.Millisecond))
	return nil
}

// exportTarget opens where the export goes. For a file: a temporary file
// beside it, which commit(true) syncs and renames to file, and commit(false)
// removes if it is still there.
func exportTarget(file string, stdout, stderr io.Writer) (out, summary io.Writer, commit func(ok bool) error, err error) {
	if file == "" || file == "-" {
		if isTerminal(stdout) {
			return nil, nil, nil, errors.New("standard output is a terminal: name a FILE, or redirect the output (ada export > FILE)")
		}
		return stdout, stderr, func(bool) error { return nil }, nil
	}
	if _, err := os.Stat(file); err == nil {
		return nil, nil, nil, fmt.Errorf("%s already exists; choose a new file name", file)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*.partial")
	if err != nil {
		return nil, nil, nil, err
	}
	done := false
	commit = func(ok bool) error {
		if done {
			return nil
		}
		done = true
		if !ok {
			tmp.Close()
			return os.Remove(tmp.Name())
		}
		err := errors.Join(tmp.Sync(), tmp.Close())
		if err == nil {
			err = os.Rename(tmp.Name(), file)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
		return err
	}
	return tmp, stdout, commit, nil
}

// writeExport writes the header, every document and every history entry of
// snap to w, and returns the header (the counts are read once: on Chroma
// each is a request).
func writeExport(ctx context.Context, snap exportSource, w io.Writer, withVectors bool, prog *progress) (jsonl.Header, error) {
	embedder, nDocs, nHist, err := snap.Counts(ctx)
	if err != nil {
		return jsonl.Header{}, err
	}
	hdr := jsonl.Header{
		ExportedAt: time.Now().UTC(), Embedder: embedder, Dimensions: core.Dim, Vectors: withVectors,
		Documents: nDocs, History: nHist,
	}
	enc, err := jsonl.NewWriter(w, hdr)
	if err != nil {
		return hdr, err
	}
	docs, hist := 0, 0
	err = snap.EachDocument(ctx, withVectors, func(d core.Document) error {
		docs++
		prog.show(docs, nDocs, hist, nHist)
		return enc.WriteDocument(d)
	})
	if err != nil {
		return hdr, err
	}
	err = snap.EachHistory(ctx, func(h core.HistoryEntry) error {
		hist++
		prog.show(docs, nDocs, hist, nHist)
		return enc.WriteHistory(h)
	})
	prog.done()
	if err != nil {
		return hdr, err
	}
	return hdr, enc.Flush()
}
