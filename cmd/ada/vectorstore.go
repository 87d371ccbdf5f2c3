package main

import (
	"context"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
	"github.com/ada-chat/ada/storage/chroma"
)

// documentStore is the store of Ada's documents: core.Store and the
// record of the embedder that wrote its vectors.
type documentStore interface {
	core.Store
	CheckEmbedder(ctx context.Context, name string) error
}

// openDocumentStore is the store core uses: the Chroma server of
// VECTORDB_URL when it is set, the SQLite database db otherwise. db stays
// open either way: the bridge's state (sync position, crypto store, room
// settings) lives in it, on each replica's own disk.
func openDocumentStore(ctx context.Context, cfg *config.Config, db *storage.DB) (documentStore, error) {
	if cfg.VectorDBURL == "" {
		return db, nil
	}
	return chroma.Open(ctx, cfg.VectorDBURL)
}
