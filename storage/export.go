package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ada-chat/ada/core"
)

const (
	snapshotCountsSQL = `SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM memory_history),
		coalesce((SELECT value FROM store_meta WHERE key = 'embedder'), ''),
		coalesce((SELECT value FROM store_meta WHERE key = 'reindex_target'), '')`
	// snapshotDocumentsSQL reads the documents in the order they were
	// written; %s is the embedding column or NULL.
	snapshotDocumentsSQL = `SELECT rowid, id, text, metadata, %s FROM documents ORDER BY rowid`
	snapshotHistorySQL   = `SELECT memory_id, ts, event, text, metadata, reason FROM memory_history ORDER BY seq`
)

// Snapshot is a consistent, read-only view of a database that other
// processes may be writing (a running Ada): every read sees the state of
// one read transaction, as `ada backup` does, and needs no lock.
type Snapshot struct {
	db *sql.DB
	tx *sql.Tx
	// Embedder wrote the stored vectors; Documents and History count the
	// rows the snapshot holds.
	Embedder           string
	Documents, History int
	// Reindexing names the embedder of a reindex that was interrupted:
	// the vectors are then a mix of two embedders'.
	Reindexing string
}

// OpenSnapshot opens the database at path read-only and starts the read
// transaction every later read is made in. Close ends it.
func OpenSnapshot(ctx context.Context, path string) (*Snapshot, error) {
	db, err := openReadOnly(path)
	if err != nil {
		return nil, err
	}
	// One connection: the transaction and its reads share it.
	db.SetMaxOpenConns(1)
	fail := func(err error) (*Snapshot, error) {
		db.Close()
		return nil, err
	}
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fail(fmt.Errorf("database %s: %w", path, err))
	}
	if latest := LatestSchemaVersion(); version != latest {
		return fail(fmt.Errorf("database %s has schema version %d, this ada reads %d: run the ada that matches it, or `ada migrate` first", path, version, latest))
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	s := &Snapshot{db: db, tx: tx}
	// The first read fixes the snapshot: the counts and every later row
	// come from the same state.
	if err := tx.QueryRowContext(ctx, snapshotCountsSQL).Scan(&s.Documents, &s.History, &s.Embedder, &s.Reindexing); err != nil {
		s.Close()
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	return s, nil
}

// Close ends the read transaction and closes the connection.
func (s *Snapshot) Close() error {
	return errors.Join(s.tx.Rollback(), s.db.Close())
}

// EachDocument calls fn on every document, in the order they were written,
// with its embedding when withVectors. Rows are read one at a time: memory
// stays constant whatever the store's size.
func (s *Snapshot) EachDocument(ctx context.Context, withVectors bool, fn func(core.Document) error) error {
	col := "NULL"
	if withVectors {
		col = "embedding"
	}
	rows, err := s.tx.QueryContext(ctx, fmt.Sprintf(snapshotDocumentsSQL, col))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		d, _, err := scanDocument(rows)
		if err != nil {
			return err
		}
		if err := fn(d); err != nil {
			return err
		}
	}
	return rows.Err()
}

// EachHistory calls fn on every memory history entry, in the order they
// were written, including those of memories no longer stored.
func (s *Snapshot) EachHistory(ctx context.Context, fn func(core.HistoryEntry) error) error {
	rows, err := s.tx.QueryContext(ctx, snapshotHistorySQL)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		h, err := scanHistory(rows)
		if err != nil {
			return err
		}
		if err := fn(h); err != nil {
			return err
		}
	}
	return rows.Err()
}

// scanHistory reads a row of memory_id, ts, event, text, metadata, reason.
func scanHistory(rows *sql.Rows) (core.HistoryEntry, error) {
	var (
		h    core.HistoryEntry
		ts   int64
		meta []byte
	)
	if err := rows.Scan(&h.MemoryID, &ts, &h.Event, &h.Text, &meta, &h.Reason); err != nil {
		return h, err
	}
	h.Time = time.Unix(0, ts).UTC()
	if err := json.Unmarshal(meta, &h.Meta); err != nil {
		return h, fmt.Errorf("history of %s: corrupt metadata: %w", h.MemoryID, err)
	}
	return h, nil
}
