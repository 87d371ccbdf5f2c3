package storage

import (
	"context"
	"database/sql"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/vecindex"
)

// documents_codes is the durable copy of the in-memory vector index
// (vecindex.Index): every document's binary code (vecindex.Quantize) with
// the fields a vector search filters on. A write transaction writes its
// rows and records the same changes (writeTx.insertedCode, deletedCode),
// which reach the index only after the commit (DB.inTx).

// insertCodeSQL writes a document's code. Its arguments are the rowid,
// type, scope, conversation id and code.
const insertCodeSQL = `INSERT INTO documents_codes (rowid, doc_type, scope, conversation_id, code) VALUES (?, ?, ?, ?, ?)`

// loadCodes builds the index from every code in documents_codes, in one
// pass over that table (about 300 bytes a document).
func loadCodes(ctx context.Context, pool *sql.DB) (*vecindex.Index, error) {
	var n int
	if err := pool.QueryRowContext(ctx, "SELECT count(*) FROM documents_codes").Scan(&n); err != nil {
		return nil, storeErr(err)
	}
	rows, err := pool.QueryContext(ctx, "SELECT rowid, doc_type, scope, conversation_id, code FROM documents_codes")
	if err != nil {
		return nil, storeErr(err)
	}
	defer rows.Close()
	x := vecindex.New()
	// RawBytes: the index copies what it keeps, so nothing is allocated
	// per row.
	err = x.Load(n, func(r *vecindex.RawRow) (bool, error) {
		if !rows.Next() {
			return false, storeErr(rows.Err())
		}
		return true, storeErr(rows.Scan(&r.Rowid, (*sql.RawBytes)(&r.Type), (*sql.RawBytes)(&r.Scope),
			(*sql.RawBytes)(&r.Conversation), (*sql.RawBytes)(&r.Code)))
	})
	if err != nil {
		// A code of the wrong length (vecindex's error) is an internal one.
		return nil, storeErr(err)
	}
	return x, nil
}

// indexFilter is the part of f the vector index filters on: its
// conditions on type, scope and conversation (indexCond).
func indexFilter(f core.Filter) vecindex.Filter {
	var x vecindex.Filter
	for _, c := range f.Conds() {
		indexCond(c, &x)
	}
	return x
}

// indexCond adds c to x and reports whether the index can say it.
func indexCond(c core.Cond, x *vecindex.Filter) bool {
	switch {
	case c.Field == core.FieldType && c.Op == core.OpEq:
		x.Type = c.Value.(string)
	case c.Field == core.FieldScope && c.Op == core.OpIn:
		x.Scopes = c.Value.([]string)
	case c.Field == core.FieldConversation && c.Op == core.OpEq:
		x.Conversation = c.Value.(string)
	default:
		return false
	}
	return true
}

// VectorIndexLen is the number of codes in the in-memory vector index: 0
// when the store was opened WithoutSearchIndex, which builds none.
func (db *DB) VectorIndexLen() int {
	if db.codes == nil {
		return 0
	}
	return db.codes.Len()
}
