package storage

import (
	"context"
	"database/sql"
	"slices"
)

// queryRowids runs selectFrom for the given rowids and calls fn on each row.
func queryRowids(ctx context.Context, tx *sql.Tx, selectFrom string, rowids []any, fn func(*sql.Rows) error) error {
	return queryRows(ctx, tx, selectFrom+" WHERE rowid IN ("+placeholders(len(rowids))+")", rowids, fn)
}

// queryIDs runs selectFrom for the documents ids, sqlChunk ids a query,
// and calls fn on each row: one query for many ids instead of one each.
func queryIDs(ctx context.Context, tx *sql.Tx, selectFrom string, ids []string, fn func(*sql.Rows) error) error {
	for chunk := range slices.Chunk(ids, sqlChunk) {
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		if err := queryRows(ctx, tx, selectFrom+" WHERE id IN ("+placeholders(len(args))+")", args, fn); err != nil {
			return err
		}
	}
	return nil
}

// queryRows runs query and calls fn on each row. The context cannot be
// cancelled, as in readNearest: the rows are few.
func queryRows(ctx context.Context, tx *sql.Tx, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(context.WithoutCancel(ctx), query, args...)
	if err != nil {
		return storeErr(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return storeErr(err)
		}
	}
	return storeErr(rows.Err())
}

// readSnapshot opens a read transaction for a search, with the document
// cache's epoch taken before it starts: documents loaded in it may be
// cached only if no write committed since (docCache).
func (db *DB) readSnapshot(ctx context.Context) (*sql.Tx, uint64, error) {
	epoch := db.docs.begin()
	tx, err := db.read.BeginTx(ctx, nil)
	if err != nil {
		return nil, 0, storeErr(err)
	}
	return tx, epoch, nil
}
