package main

import (
	"context"
	"net/url"

	"github.com/google/uuid"

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
	return openChroma(ctx, cfg, cfg.VectorDBURL)
}

// openChroma opens the Chroma store at rawURL (VECTORDB_URL or a database
// beside it) with the operator's credentials.
func openChroma(ctx context.Context, cfg *config.Config, rawURL string) (*chroma.Store, error) {
	return chroma.Open(ctx, rawURL, chroma.WithToken(cfg.ChromaToken))
}

// localStoreOptions are the options of the local SQLite database of a
// service. With VECTORDB_URL set it keeps the bridge's state only and is
// never searched: it loads no search index, which would cost a pass over
// every document it still holds (those of before a migrate-store) at each
// start.
func localStoreOptions(cfg *config.Config) []storage.Option {
	if cfg.VectorDBURL == "" {
		return nil
	}
	return []storage.Option{storage.WithoutSearchIndex()}
}

// openEvalStore opens a new, empty store for one sample of `ada eval
// retrieval`: a SQLite file at path, or, with VECTORDB_URL set, a database
// of its own on the Chroma server, so that both backends are measured the
// same way. close closes it and drops the Chroma database's collections.
func openEvalStore(ctx context.Context, cfg *config.Config, path string) (documentStore, func(), error) {
	if cfg.VectorDBURL == "" {
		db, err := storage.Open(ctx, path)
		if err != nil {
			return nil, nil, err
		}
		return db, func() { db.Close() }, nil
	}
	u, err := url.Parse(cfg.VectorDBURL)
	if err != nil {
		return nil, nil, err
	}
	q := u.Query()
	q.Set("database", "ada-eval-"+uuid.NewString())
	u.RawQuery = q.Encode()
	s, err := openChroma(ctx, cfg, u.String())
	if err != nil {
		return nil, nil, err
	}
	return s, func() { s.Drop(context.WithoutCancel(ctx)) }, nil
}

// exportSource is a store an export reads: a SQLite snapshot or a Chroma
// store.
type exportSource interface {
	Counts(ctx context.Context) (embedder string, documents, history int, err error)
	EachDocument(ctx context.Context, withVectors bool, fn func(core.Document) error) error
	EachHistory(ctx context.Context, fn func(core.HistoryEntry) error) error
}

// importTarget is a store an import writes: SQLite or Chroma.
type importTarget interface {
	Import(ctx context.Context, docs []core.Document, history []core.HistoryEntry) (storage.ImportResult, error)
	Stored(ctx context.Context, ids []string) (map[string]bool, error)
}

var (
	_ exportSource = (*storage.Snapshot)(nil)
	_ exportSource = (*chroma.Store)(nil)
	_ importTarget = (*storage.DB)(nil)
	_ importTarget = (*chroma.Store)(nil)
)
