package storage

import (
	"context"

	"github.com/ada-chat/ada/core"
)

// Count returns how many documents match f, counting no further than
// limit (0: no limit), so that a rare filter does not read the whole store
// for a number.
func (db *DB) Count(ctx context.Context, f core.Filter, limit int) (int, error) {
	where, args := filterSQL(f)
	query := "SELECT count(*) FROM " + listSource(f) + where
	if limit > 0 {
		query = "SELECT count(*) FROM (SELECT 1 FROM " + listSource(f) + where + " LIMIT ?)"
		args = append(args, limit)
	}
	var n int
	err := db.read.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, storeErr(err)
}

// Forgotten returns up to limit history entries that took a memory away
// (deleted, expired, retired by a correction), newest first.
func (db *DB) Forgotten(ctx context.Context, limit int) ([]core.HistoryEntry, error) {
	return db.queryHistory(ctx, `SELECT memory_id, ts, event, text, metadata, reason FROM memory_history
		WHERE event IN (?, ?, ?) ORDER BY seq DESC LIMIT ?`, core.HistoryDelete, core.HistoryExpire, core.HistoryRetire, limit)
}
