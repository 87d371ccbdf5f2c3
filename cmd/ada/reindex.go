package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// reindexBatch is small enough to keep a remote embedder's request short.
const reindexBatch = 64

// runReindex re-embeds every document with the configured embedder. It is
// resumable: run it again after an interruption and it continues.
func runReindex(ctx context.Context, cfg *config.Config, log *slog.Logger, out io.Writer) error {
	if cfg.VectorDBURL != "" {
		// Re-embedding in place is SQLite's (its progress is kept in the
		// same transactions as the vectors); on Chroma it would touch the
		// wrong store.
		return fmt.Errorf("reindex: VECTORDB_URL is set, and reindex re-embeds the SQLite store only: on Chroma, " +
			"ada export --no-vectors FILE, then import FILE into an empty Chroma database with the new embedder")
	}
	db, emb, done, err := openWithEmbedder(ctx, cfg)
	if err != nil {
		return err
	}
	defer done()
	fmt.Fprintf(out, "reindexing %s with %s\n", cfg.DBPath(), emb.Name())
	err = db.Reindex(ctx, emb, reindexBatch, func(p storage.ReindexProgress) {
		fmt.Fprintf(out, "reindex: %d/%d documents\n", p.Done, p.Total)
	})
	if err != nil {
		return fmt.Errorf("reindex stopped (run it again to resume): %w", err)
	}
	fmt.Fprintln(out, "reindex complete")
	log.Info("reindex complete", "embedder", emb.Name())
	return nil
}

// openWithEmbedder takes DATA_DIR, opens the store and builds the
// configured embedder, for the commands that write vectors (reindex,
// import). done closes the store and gives the directory back.
func openWithEmbedder(ctx context.Context, cfg *config.Config) (*storage.DB, core.Embedder, func(), error) {
	db, unlock, err := openStore(ctx, cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	done := func() {
		db.Close()
		unlock()
	}
	emb, err := newEmbedder(cfg, &http.Client{})
	if err != nil {
		done()
		return nil, nil, nil, err
	}
	return db, emb, done, nil
}
