package storage

import (
	"context"
	"database/sql"

	"github.com/ada-chat/ada/core"
)

// deleteImportedHistorySQL removes a history entry as the import finds it
// (historyExistsSQL): by memory, time, event and text.
const deleteImportedHistorySQL = `DELETE FROM memory_history
	WHERE memory_id = ? AND ts = ? AND event = ? AND text = ?`

// PruneImported removes the documents docIDs and the history entries of
// history from the store, in one transaction and recording nothing: an
// import into a store that is not empty first removes what the export
// lacks or holds otherwise, so that the store ends with exactly the
// export's state (a memory forgotten since the store was copied must not
// come back, nor the words of its history). Nothing cascades: the export
// says what remains. Ids not stored are passed over.
func (db *DB) PruneImported(ctx context.Context, docIDs []string, history []core.HistoryEntry) error {
	return db.inTx(ctx, func(tx *writeTx) error {
		var rowids []int64
		err := queryIDs(ctx, tx.Tx, "SELECT rowid FROM documents", docIDs, func(rows *sql.Rows) error {
			var rowid int64
			err := rows.Scan(&rowid)
			rowids = append(rowids, rowid)
			return err
		})
		if err != nil {
			return err
		}
		if err := deleteRowids(ctx, tx, rowids, false); err != nil {
			return err
		}
		// Not a prepared statement (writeTx.exec): it runs only here.
		for _, h := range history {
			if _, err := tx.ExecContext(ctx, deleteImportedHistorySQL, h.MemoryID, h.Time.UnixNano(), h.Event, h.Text); err != nil {
				return storeErr(err)
			}
		}
		return nil
	})
}
