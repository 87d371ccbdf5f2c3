package storage

import (
	"context"
	"strings"
)

// A document's keyword row (documents_fts) and code row (documents_codes)
// are not inserted one statement each, as its documents row is, but held
// by the write transaction and inserted rowsPerInsert at a time, by one
// multi-row statement per table (flushRows): each statement through
// database/sql and the driver costs a few microseconds of its own beside
// its row, a share of an insert that plain vec0 (one statement a vector)
// does not pay. The rows are flushed before anything in the transaction
// could see them missing: before a document is deleted (deleteRowids, the
// keyword index's delete trigger needs the row there), at the end of each
// loop of inserts, and before the commit (DB.inTx).

// rowsPerInsert are the row counts of the multi-row statements, largest
// first: a flush writes as many of the largest as fit, then the next.
var rowsPerInsert = []int{64, 16, 4, 1}

const (
	keywordRowSQL = "(?, ?, ?)"
	codeRowSQL    = "(?, ?, ?, ?, ?)"
)

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
		out = append(out, multiRowSQL(insertKeywordSQL, keywordRowSQL, n), multiRowSQL(insertCodeSQL, codeRowSQL, n))
	}
	return out
}

// flushRows inserts the keyword and code rows held (see above).
func (tx *writeTx) flushRows(ctx context.Context) error {
	if err := tx.flushTable(ctx, insertKeywordSQL, keywordRowSQL, 3, &tx.keywordArgs); err != nil {
		return err
	}
	return tx.flushTable(ctx, insertCodeSQL, codeRowSQL, 5, &tx.codeArgs)
}

// flushTable inserts the rows of args (cols values each) by the multi-row
// forms of oneRow, and empties args.
func (tx *writeTx) flushTable(ctx context.Context, oneRow, row string, cols int, args *[]any) error {
	rest := *args
	for _, n := range rowsPerInsert {
		if len(rest) < n*cols {
			continue // nor is its statement built: most flushes hold nothing
		}
		q := multiRowSQL(oneRow, row, n)
		for len(rest) >= n*cols {
			if _, err := tx.exec(ctx, q, rest[:n*cols]...); err != nil {
				return storeErr(err)
			}
			rest = rest[n*cols:]
		}
	}
	clear(*args) // the texts and codes are not kept alive by the slice
	*args = (*args)[:0]
	return nil
}
