package storage

import (
	"context"
	"database/sql"
	"errors"

	"github.com/ada-chat/ada/core"
)

const embedderKey = "embedder"

// Backend names the backend for health.
func (db *DB) Backend() string { return backendName }

const backendName = "sqlite-vec"

// Stats reports document counts and the embedder that wrote the vectors.
func (db *DB) Stats(ctx context.Context) (core.StoreStats, error) {
	st := core.StoreStats{Backend: backendName, Path: db.path, Dimensions: core.Dim, ByType: map[core.DocType]int{}}
	if err := db.read.QueryRowContext(ctx, "SELECT vec_version()").Scan(&st.Version); err != nil {
		return st, storeErr(err)
	}
	rows, err := db.read.QueryContext(ctx, "SELECT type, count(*) FROM documents GROUP BY type")
	if err != nil {
		return st, storeErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return st, storeErr(err)
		}
		st.ByType[core.DocType(t)] = n
		st.Total += n
	}
	if err := rows.Err(); err != nil {
		return st, storeErr(err)
	}
	st.Embedder, err = db.meta(ctx, embedderKey)
	return st, err
}

func (db *DB) meta(ctx context.Context, key string) (string, error) {
	var v string
	err := db.read.QueryRowContext(ctx, "SELECT value FROM store_meta WHERE key = ?", key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, storeErr(err)
}

func setMeta(ctx context.Context, x interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, key, value string) error {
	_, err := x.ExecContext(ctx, "INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value)
	return storeErr(err)
}

// CheckEmbedder records name as the store's embedder on first use, and
// refuses to run with a different embedder than the one that wrote the
// stored vectors: their distances would be meaningless.
func (db *DB) CheckEmbedder(ctx context.Context, name string) error {
	current, err := db.meta(ctx, embedderKey)
	if err != nil {
		return err
	}
	switch current {
	case name:
		return nil
	case "":
		return setMeta(ctx, db.write, embedderKey, name)
	default:
		return core.EmbedderMismatch(current, name)
	}
}

// Status checks that both connections answer and names sqlite-vec's
// version, counting nothing (health's probe).
func (db *DB) Status(ctx context.Context) (core.StoreStatus, error) {
	st := core.StoreStatus{Backend: backendName, Index: core.IndexReady}
	if db.VectorIndexLoading() {
		st.Index = core.IndexLoading
	}
	if err := db.read.QueryRowContext(ctx, "SELECT vec_version()").Scan(&st.Version); err != nil {
		return st, core.Wrap(core.KindUnavailable, err, "vector store unavailable")
	}
	if err := db.write.PingContext(ctx); err != nil {
		return st, core.Wrap(core.KindUnavailable, err, "vector store unavailable")
	}
	return st, nil
}
