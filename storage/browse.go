package storage

import (
	"context"

	"github.com/ada-chat/ada/core"
)

// browseSQL adds the memory page's narrowing of f (core.Filter's Source,
// MinImportance, Since, Until, AnyEntity and Visible) to a WHERE clause.
func browseSQL(f core.Filter, conds []string, args []any) ([]string, []any) {
	if f.Source != "" {
		conds, args = append(conds, "json_extract(metadata, '$.source') = ?"), append(args, f.Source)
	}
	if f.MinImportance > 0 {
		conds, args = append(conds, "json_extract(metadata, '$.importance') >= ?"), append(args, f.MinImportance)
	}
	if !f.Since.IsZero() {
		conds, args = append(conds, "ts >= ?"), append(args, f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		conds, args = append(conds, "ts < ?"), append(args, f.Until.UnixNano())
	}
	if f.AnyEntity {
		conds = append(conds, "scope LIKE 'entity:%'")
	}
	if v := f.Visible; v != nil {
		who := "json_extract(metadata, '$.user_id') = ? OR json_extract(metadata, '$.subject_user_id') = ? OR json_extract(metadata, '$.entity') = ?"
		args = append(args, v.UserID, v.UserID, v.UserID)
		if len(v.Rooms) > 0 {
			who += " OR room_id IN (" + placeholders(len(v.Rooms)) + ")"
			for _, r := range v.Rooms {
				args = append(args, r)
			}
		}
		conds = append(conds, "("+who+")")
	}
	return conds, args
}

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
