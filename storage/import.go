package storage

import (
	"context"
	"encoding/json"

	"github.com/ada-chat/ada/core"
)

// historyExistsSQL finds a history entry already imported: a memory meets
// one event at one nanosecond once.
const historyExistsSQL = `SELECT EXISTS (SELECT 1 FROM memory_history
	WHERE memory_id = ? AND ts = ? AND event = ? AND text = ?)`

// ImportResult counts what Import wrote and what it found already stored.
type ImportResult struct {
	Documents, DocumentsSkipped int
	History, HistorySkipped     int
}

// Add adds the counts of o to r.
func (r *ImportResult) Add(o ImportResult) {
	r.Documents += o.Documents
	r.DocumentsSkipped += o.DocumentsSkipped
	r.History += o.History
	r.HistorySkipped += o.HistorySkipped
}

// SchemaMemo is the memo of the schema checks the store's writes make: an
// export's reader that remembers its checks in it (jsonl.Reader's
// ShareSchemaMemo) spares Import a second check of each document.
func (db *DB) SchemaMemo() *core.SchemaMemo { return &db.validated }

// Import writes documents and memory history entries read from an export,
// as they are (ids, timestamps, metadata, vectors), in one transaction. It
// is idempotent, which makes an interrupted import resumable: a document
// whose id is already stored is left as it is, and a history entry already
// there (same memory, time, event and text) is not added again.
//
// Unlike Put, it writes a memory whose source turns are not stored (yet):
// an export lists documents in the order they were written, which need not
// be that of their provenance, and a memory restored from a backup is not
// one learned from a deleted message.
func (db *DB) Import(ctx context.Context, docs []core.Document, history []core.HistoryEntry) (ImportResult, error) {
	var res ImportResult
	put := encodeDocuments(&db.validated, docs)
	if err := put.firstErr(); err != nil {
		return res, err
	}
	err := db.inTx(ctx, func(tx *writeTx) error {
		res = ImportResult{}
		for i := range docs {
			d, err := put.get(i)
			if err != nil {
				return err
			}
			_, inserted, err := insertDocument(ctx, tx, d)
			if err != nil {
				return err
			}
			if inserted {
				res.Documents++
			} else {
				res.DocumentsSkipped++
			}
		}
		if err := tx.flushRows(ctx); err != nil {
			return err
		}
		for _, h := range history {
			added, err := importHistory(ctx, tx, h)
			if err != nil {
				return err
			}
			if added {
				res.History++
			} else {
				res.HistorySkipped++
			}
		}
		return nil
	})
	return res, err
}

func importHistory(ctx context.Context, tx *writeTx, h core.HistoryEntry) (bool, error) {
	var exists bool
	err := tx.QueryRowContext(ctx, historyExistsSQL, h.MemoryID, h.Time.UnixNano(), h.Event, h.Text).Scan(&exists)
	if err != nil || exists {
		return false, storeErr(err)
	}
	meta, err := json.Marshal(h.Meta)
	if err != nil {
		return false, core.Wrap(core.KindInternal, err, "encode metadata")
	}
	return true, insertHistory(ctx, tx, h, string(meta))
}

// Stored returns which of ids are stored.
func (db *DB) Stored(ctx context.Context, ids []string) (map[string]bool, error) {
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return nil, storeErr(err)
	}
	defer tx.Rollback()
	return storedIDs(ctx, tx, ids)
}
