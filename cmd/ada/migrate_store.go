package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

const migrateStoreUsage = `usage: ada migrate-store [--into-existing] --to chroma|sqlite

Copies every document and every memory's history from one store to the
other: from DATA_DIR/ada.db to the Chroma server of VECTORDB_URL (--to
chroma), or back (--to sqlite). It is ada export piped into ada import, in
one process: ids, timestamps, metadata, history and vectors are kept
exactly, and a target with another embedder re-embeds and says so. It is
resumable: run it again after an interruption. The source is left as it
is. Stop Ada first: what it writes during the copy may be missed. Then
start it with VECTORDB_URL set (--to chroma) or empty (--to sqlite).

The target is compared with the source before anything is written. A
target that holds only part of the source (an interrupted copy) is
continued. A target that holds anything else, such as the older copy
left in DATA_DIR/ada.db when you moved to Chroma, is refused: a copy
would keep what was deleted, expired, retired or changed since, and a
forgotten memory would be live again.

  --into-existing  copy into such a target all the same, and make it hold
                   exactly the source's state: what the source lacks or
                   holds otherwise (documents and history entries) is
                   removed from the target first; the bridge's own data in
                   ada.db is kept`

// Backends of migrate-store.
const (
	backendSQLite = "sqlite"
	backendChroma = "chroma"
)

// backendOf is the store the settings select.
func backendOf(cfg *config.Config) string {
	if cfg.VectorDBURL != "" {
		return backendChroma
	}
	return backendSQLite
}

func runMigrateStore(ctx context.Context, cfg *config.Config, log *slog.Logger, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ada migrate-store", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	to := fs.String("to", "", "")
	into := fs.Bool(intoExistingFlag, false, "")
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, migrateStoreUsage)
		return nil
	case err != nil:
		return fmt.Errorf("migrate-store: %w (see ada migrate-store --help)", err)
	case fs.NArg() > 0:
		return fmt.Errorf("migrate-store takes no argument, got %q (see ada migrate-store --help)", fs.Args())
	case *to != backendChroma && *to != backendSQLite:
		return fmt.Errorf("migrate-store: --to must be chroma or sqlite (see ada migrate-store --help)")
	case cfg.VectorDBURL == "":
		return fmt.Errorf("migrate-store: VECTORDB_URL must name the Chroma server, whichever way the copy goes")
	}
	from := backendChroma
	if *to == backendChroma {
		from = backendSQLite
	}
	src, closeSrc, err := openExportSource(ctx, cfg, from, true)
	if err != nil {
		return fmt.Errorf("migrate-store: %w", err)
	}
	defer closeSrc()
	fmt.Fprintf(stdout, "copying the %s store into the %s store\n", from, *to)
	pr, pw := io.Pipe()
	exported := make(chan error, 1)
	go func() {
		_, err := writeExport(ctx, src, pw, true, newProgress(io.Discard, "export"))
		pw.CloseWithError(err)
		exported <- err
	}()
	// The source's fingerprints are read only for a target that is not
	// empty, from the snapshot the export reads (its queries share the
	// one connection, which serialises them).
	state := func() (*exportState, error) {
		st, err := scanSource(ctx, src)
		if err != nil {
			err = fmt.Errorf("reading the %s store: %w", from, err)
		}
		return st, err
	}
	err = importInto(ctx, cfg, log, *to, pr, importPlan{state: state, into: *into}, stdout, stderr)
	pr.CloseWithError(errors.New("import ended"))
	if xerr := <-exported; err == nil && xerr != nil {
		err = fmt.Errorf("migrate-store: reading the %s store: %w", from, xerr)
	}
	return err
}

// openExportSource opens the store of backend for reading an export. A
// SQLite export is one snapshot; withVectors refuses a store whose reindex
// was interrupted (its vectors are a mix of two embedders').
func openExportSource(ctx context.Context, cfg *config.Config, backend string, withVectors bool) (exportSource, func(), error) {
	if backend == backendChroma {
		s, err := openChroma(ctx, cfg, cfg.VectorDBURL)
		return s, func() {}, err
	}
	snap, err := storage.OpenSnapshot(ctx, cfg.DBPath())
	if err != nil {
		return nil, nil, err
	}
	if snap.Reindexing != "" && snap.Reindexing != snap.Embedder && withVectors {
		snap.Close()
		return nil, nil, fmt.Errorf("a reindex to %s was interrupted, so the vectors are a mix of %s's and %s's: finish it (ada reindex) first, or export --no-vectors", snap.Reindexing, snap.Embedder, snap.Reindexing)
	}
	return snap, func() { snap.Close() }, nil
}

// importStore is a store an import writes, with its embedder record.
type importStore interface {
	importTarget
	CheckEmbedder(ctx context.Context, name string) error
}

// openImportTarget opens the store of backend for an import, and the
// configured embedder. done closes the store (and gives DATA_DIR back).
func openImportTarget(ctx context.Context, cfg *config.Config, backend string) (importStore, core.Embedder, func(), error) {
	if backend == backendSQLite {
		return openWithEmbedder(ctx, cfg)
	}
	s, err := openChroma(ctx, cfg, cfg.VectorDBURL)
	if err != nil {
		return nil, nil, nil, err
	}
	emb, err := newEmbedder(cfg, &http.Client{})
	if err != nil {
		return nil, nil, nil, err
	}
	return s, emb, func() {}, nil
}
