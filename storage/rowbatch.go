package storage

import (
	"context"
	"strings"
)

// A document's keyword row (documents_fts) and code row (documents_codes)
// are not inserted as its documents row is, but held by the write
// transaction and inserted together (flushRows): the code rows
// rowsPerInsert at a time, by one multi-row statement (each statement
// through database/sql and the driver costs a few microseconds of its own
// beside its row, a share of an insert that plain vec0, one statement a
// vector, does not pay), then the keyword rows, one statement each.
//
// The keyword rows are not written several to a statement, nor followed
// by a multi-row statement, because FTS5 writes its pending terms out as a
// new segment at every statement savepoint opened after it was written in
// the transaction, and SQLite opens one for every statement that may write
// several rows and fail partway (a multi-row insert, an insert into a
// virtual table of several rows): a batch of 100 documents became four
// segments instead of one, each merged again later (as the insert trigger
// of migration 7 made one a document; TestOneKeywordSegmentPerWrite). A
// one-row insert opens none: the terms of the whole transaction go out as
// one segment at the commit.
//
// The rows are flushed before anything in the transaction could see them
// missing: before a document is deleted (deleteRowids, the keyword index's
// delete trigger needs the row there), at the end of each loop of inserts,
// and before the commit (DB.inTx).

// rowsPerInsert are the row counts of the multi-row code inserts, largest
// first: a flush writes as many of the largest as fit, then the next.
var rowsPerInsert = []int{64, 16, 4, 1}

const codeRowSQL = "(?, ?, ?, ?, ?)"

// multiRowSQL is an insert of rows rows, given its one-row form, which ends
// in its one row's values.
func multiRowSQL(oneRow, row string, rows int) string {
	head := strings.TrimSuffix(oneRow, row)
	return head + strings.TrimSuffix(strings.Repeat(row+", ", rows), ", ")
}

// batchedSQL are the multi-row inserts, prepared at Open with preparedSQL.
func batchedSQL() []string {
	var out []string
	for _, n := range rowsPerInsert {
		out = append(out, multiRowSQL(insertCodeSQL, codeRowSQL, n))
	}
	return out
}

// flushRows inserts the code and keyword rows held (see above), in that
// order.
func (tx *writeTx) flushRows(ctx context.Context) error {
	if err := tx.flushCodes(ctx); err != nil {
		return err
	}
	args := tx.keywordArgs
	for ; len(args) >= 3; args = args[3:] {
		if _, err := tx.exec(ctx, insertKeywordSQL, args[:3]...); err != nil {
			return storeErr(err)
		}
	}
	clear(tx.keywordArgs) // the texts are not kept alive by the slice
	tx.keywordArgs = tx.keywordArgs[:0]
	return nil
}

// flushCodes inserts the code rows held by the multi-row forms of
// insertCodeSQL.
func (tx *writeTx) flushCodes(ctx context.Context) error {
	const cols = 5
	rest := tx.codeArgs
	for _, n := range rowsPerInsert {
		if len(rest) < n*cols {
			continue // nor is its statement built: most flushes hold nothing
		}
		q := multiRowSQL(insertCodeSQL, codeRowSQL, n)
		for len(rest) >= n*cols {
			if _, err := tx.exec(ctx, q, rest[:n*cols]...); err != nil {
				return storeErr(err)
			}
			rest = rest[n*cols:]
		}
	}
	clear(tx.codeArgs) // nor the codes
	tx.codeArgs = tx.codeArgs[:0]
	return nil
}
