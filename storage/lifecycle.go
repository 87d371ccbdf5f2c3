package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"slices"
	"time"

	"github.com/ada-chat/ada/core"
)

// sqlChunk bounds the ids bound in one IN list, well below SQLite's limit.
const sqlChunk = 500

// deleteRowids deletes documents with their vectors and their own
// provenance rows. With cascade, it is a deletion in its own right (not the
// first half of a replacement): the memories that had all their sources
// among the deleted documents are deleted too, and their history says why.
func deleteRowids(ctx context.Context, tx *writeTx, rowids []int64, cascade bool) error {
	if err := tx.flushRows(ctx); err != nil {
		return err
	}
	var ids []any
	for start := 0; start < len(rowids); start += sqlChunk {
		chunk := make([]any, 0, sqlChunk)
		for _, r := range rowids[start:min(start+sqlChunk, len(rowids))] {
			chunk = append(chunk, r)
		}
		err := queryRowids(ctx, tx.Tx, "SELECT id FROM documents", chunk, func(rows *sql.Rows) error {
			var id string
			err := rows.Scan(&id)
			ids = append(ids, id)
			return err
		})
		if err != nil {
			return err
		}
	}
	for _, r := range rowids {
		if _, err := tx.exec(ctx, deleteCodeSQL, r); err != nil {
			return storeErr(err)
		}
		if _, err := tx.exec(ctx, deleteDocumentSQL, r); err != nil {
			return storeErr(err)
		}
		tx.deletedCode(r)
		tx.keywordsChanged = true
	}
	if err := execChunks(ctx, tx, "DELETE FROM memory_sources WHERE memory_id IN", ids); err != nil {
		return err
	}
	if !cascade {
		return nil
	}
	return deleteOrphans(ctx, tx, ids)
}

// deleteOrphans removes the provenance rows of the deleted sources and
// deletes each automatic memory they leave without a stored source
// (core.Orphaned).
func deleteOrphans(ctx context.Context, tx *writeTx, sources []any) error {
	var affected []string
	for start := 0; start < len(sources); start += sqlChunk {
		chunk := sources[start:min(start+sqlChunk, len(sources))]
		rows, err := tx.QueryContext(ctx, "SELECT DISTINCT memory_id FROM memory_sources WHERE source_id IN ("+placeholders(len(chunk))+")", chunk...)
		if err != nil {
			return storeErr(err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return storeErr(err)
			}
			affected = append(affected, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return storeErr(err)
		}
	}
	if len(affected) == 0 {
		return nil
	}
	// DISTINCT holds within a chunk: a memory whose sources fall in two
	// chunks is named twice, and would be deleted and recorded twice.
	slices.Sort(affected)
	affected = slices.Compact(affected)
	if err := execChunks(ctx, tx, "DELETE FROM memory_sources WHERE source_id IN", sources); err != nil {
		return err
	}
	// The memories that lost a source, and whether their other sources
	// are stored, are read a chunk of ids a query, not one by one; the
	// memories deleted themselves are not found.
	type memory struct {
		rowid int64
		id    string
		meta  core.Metadata
	}
	var mems []memory
	var sourceIDs []string
	err := queryIDs(ctx, tx.Tx, "SELECT rowid, id, metadata FROM documents", affected, func(rows *sql.Rows) error {
		var m memory
		var meta string
		if err := rows.Scan(&m.rowid, &m.id, &meta); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(meta), &m.meta); err != nil {
			return err
		}
		mems = append(mems, m)
		sourceIDs = append(sourceIDs, m.meta.SourceIDs...)
		return nil
	})
	if err != nil {
		return err
	}
	stored, err := storedIDs(ctx, tx.Tx, sourceIDs)
	if err != nil {
		return err
	}
	mems = slices.DeleteFunc(mems, func(m memory) bool {
		return !core.Orphaned(m.meta, func(id string) bool { return stored[id] })
	})
	rowids := make([]int64, len(mems))
	for i, m := range mems {
		rowids[i] = m.rowid
	}
	if err := deleteRowids(ctx, tx, rowids, false); err != nil {
		return err
	}
	now := time.Now().UTC()
	for _, m := range mems {
		tx.orphans = append(tx.orphans, m.id)
		metaJSON, err := json.Marshal(m.meta)
		if err != nil {
			return storeErr(err)
		}
		if err := insertHistory(ctx, tx, core.OrphanDeleted(m.id, m.meta, now, tx.cascadeReason), string(metaJSON)); err != nil {
			return err
		}
	}
	return nil
}

func execChunks(ctx context.Context, tx *writeTx, stmtIn string, ids []any) error {
	for start := 0; start < len(ids); start += sqlChunk {
		chunk := ids[start:min(start+sqlChunk, len(ids))]
		if _, err := tx.ExecContext(ctx, stmtIn+" ("+placeholders(len(chunk))+")", chunk...); err != nil {
			return storeErr(err)
		}
	}
	return nil
}

// forgetWords blanks the words of history entries (their text, tags and
// the times they mention, whose text quotes the message):
// what is forgotten leaves a record of when and why, never its words
// (DECISIONS.md, Forgetting). Every path that forgets uses it: a memory's
// end (insertHistory) and retention (PruneHistory).
const forgetWords = `UPDATE memory_history SET text = '', metadata = json_remove(metadata, '$.tags', '$.times')`

// holdsWords selects the history entries forgetWords would change.
const holdsWords = `(text != '' OR json_extract(metadata, '$.tags') IS NOT NULL OR json_extract(metadata, '$.times') IS NOT NULL)`

// forgetChainSQL blanks the words of a memory's history and of the
// versions it replaced by corrections, and theirs in turn: a retire
// entry's reason names the newer memory (core.RetireReason), and the old
// versions' words must not outlive the memory that replaced them. The
// partial index memory_history_retired (migration 16) finds each link.
const forgetChainSQL = `WITH RECURSIVE chain(id) AS (
		SELECT ?
		UNION
		SELECT h.memory_id FROM memory_history h JOIN chain c ON h.event = 'retire' AND h.reason = ? || c.id
	)
	` + forgetWords + ` WHERE memory_id IN (SELECT id FROM chain) AND ` + holdsWords

// insertHistory appends h. A memory's end (deletion, expiry, whoever
// causes it) is recorded without its words, and blanks those of its earlier
// entries and of the older versions it replaced.
func insertHistory(ctx context.Context, tx *writeTx, h core.HistoryEntry, meta string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO memory_history (memory_id, ts, event, text, metadata, reason, room_id)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, h.MemoryID, h.Time.UnixNano(), h.Event, h.Text, meta, h.Reason, nullable(h.Meta.RoomID))
	if err != nil || !core.Forgets(h.Event) {
		return storeErr(err)
	}
	_, err = tx.ExecContext(ctx, forgetChainSQL, h.MemoryID, core.RetiredByPrefix)
	return storeErr(err)
}

// History returns the history of memoryID, oldest first.
func (db *DB) History(ctx context.Context, memoryID string) ([]core.HistoryEntry, error) {
	return db.queryHistory(ctx, `SELECT memory_id, ts, event, text, metadata, reason FROM memory_history
		WHERE memory_id = ? ORDER BY seq`, memoryID)
}

// queryHistory reads the history entries a query selects.
func (db *DB) queryHistory(ctx context.Context, query string, args ...any) ([]core.HistoryEntry, error) {
	rows, err := db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, storeErr(err)
	}
	defer rows.Close()
	var out []core.HistoryEntry
	for rows.Next() {
		h, err := scanHistory(rows)
		if err != nil {
			return nil, storeErr(err)
		}
		out = append(out, h)
	}
	return out, storeErr(rows.Err())
}

// PruneHistory blanks the text of the history entries of room memories
// older than cutoff; the entries stay, as the record of what went.
func (db *DB) PruneHistory(ctx context.Context, cutoff time.Time) (int, error) {
	var n int64
	err := db.inTx(ctx, func(tx *writeTx) error {
		res, err := tx.ExecContext(ctx, forgetWords+`
			WHERE room_id IS NOT NULL AND ts < ? AND `+holdsWords, cutoff.UnixNano())
		if err != nil {
			return storeErr(err)
		}
		n, err = res.RowsAffected()
		return storeErr(err)
	})
	return int(n), err
}

// Retired returns the retire entries that still hold words and that req
// covers, without their text; their metadata comes whole, so its tags and
// times may still quote the memory's words (the caller reads only whom and
// where an entry concerns). The query selects them as
// core.ForgetRequest.Covers does, so a person's forgetting reads their
// retired versions only, not every one.
func (db *DB) Retired(ctx context.Context, req core.ForgetRequest) ([]core.HistoryEntry, error) {
	return db.queryHistory(ctx, `SELECT memory_id, ts, event, '', metadata, reason FROM memory_history
		WHERE event = ?1 AND text != '' AND (?3 = '' OR room_id = ?3)
		AND (room_id = ?2 OR metadata ->> '$.user_id' = ?2 OR metadata ->> '$.subject_user_id' = ?2
			OR (?3 = '' AND metadata ->> '$.scope' = ?4))`,
		core.HistoryRetire, req.Entity, req.RoomID, core.EntityScope(req.Entity))
}

// ForgetHistory blanks the words of every history entry of memoryIDs.
func (db *DB) ForgetHistory(ctx context.Context, memoryIDs []string) error {
	ids := make([]any, len(memoryIDs))
	for i, id := range memoryIDs {
		ids[i] = id
	}
	return db.inTx(ctx, func(tx *writeTx) error { return execChunks(ctx, tx, forgetWords+" WHERE memory_id IN", ids) })
}
