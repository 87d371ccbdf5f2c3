package storage

import (
	"context"
	"database/sql"
	"time"

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

// loadCodesInBackground makes db.codes an index that loads itself from
// documents_codes while the store serves: a restart at a million documents
// is ready in the time its migrations take, not in the seconds a pass over
// 300 MB of codes (and the training of the inverted files) takes. Until
// the index is loaded, vector searches run exactly in SQLite (Search), and
// keyword searches filter in SQL (KeywordSearch). The writes committed
// meanwhile are queued by the index and replayed over what the load read
// (vecindex.NewLoading), so none is lost and no deleted row comes back. A
// failed load (an I/O error) is reported to failed, if set, and tried
// again until Close.
func (db *DB) loadCodesInBackground(failed func(error), loaded func(rows int, took time.Duration)) {
	db.codes = vecindex.NewLoading()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	db.stopLoad = func() {
		cancel()
		<-done
		if !db.codes.Ready() {
			// Closed before the load ended: readers get an empty index
			// rather than waiting for ever (the store is closed anyway).
			db.codes.Load(0, func(*vecindex.RawRow) (bool, error) { return false, nil })
		}
	}
	go func() {
		defer close(done)
		t0 := time.Now()
		for wait := time.Second; ; wait = min(2*wait, 30*time.Second) {
			err := loadCodes(ctx, db.read, db.codes)
			if err == nil {
				if loaded != nil {
					loaded(db.codes.Len(), time.Since(t0))
				}
				return
			}
			if failed != nil && ctx.Err() == nil {
				failed(err)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
	}()
}

// loadCodes loads x from every code in documents_codes, in one pass over
// that table (about 300 bytes a document) on one read snapshot, which is
// taken after x was made (see vecindex.Index.Load).
func loadCodes(ctx context.Context, pool *sql.DB, x *vecindex.Index) error {
	tx, err := pool.BeginTx(ctx, nil)
	if err != nil {
		return storeErr(err)
	}
	defer tx.Rollback()
	return readCodes(ctx, tx, x)
}

// readCodes loads x from documents_codes as tx sees it.
func readCodes(ctx context.Context, tx *sql.Tx, x *vecindex.Index) error {
	// The span of the rowids sizes the index's map: a count(*) would read
	// the whole table once more.
	var span int64
	if err := tx.QueryRowContext(ctx, "SELECT ifnull(max(rowid) - min(rowid) + 1, 0) FROM documents_codes").Scan(&span); err != nil {
		return storeErr(err)
	}
	// A context that cannot be cancelled: with one that can, the driver
	// (mattn/go-sqlite3) starts a goroutine for every row it steps. A
	// cancelled load (Close) stops between rows instead.
	rows, err := tx.QueryContext(context.WithoutCancel(ctx), "SELECT rowid, doc_type, scope, conversation_id, code FROM documents_codes")
	if err != nil {
		return storeErr(err)
	}
	defer rows.Close()
	// RawBytes: the index copies what it keeps, so nothing is allocated
	// per row.
	read := 0
	err = x.Load(int(min(span, 4<<20)), func(r *vecindex.RawRow) (bool, error) {
		if read++; read%4096 == 0 && ctx.Err() != nil {
			return false, ctx.Err()
		}
		if !rows.Next() {
			return false, storeErr(rows.Err())
		}
		return true, storeErr(rows.Scan(&r.Rowid, (*sql.RawBytes)(&r.Type), (*sql.RawBytes)(&r.Scope),
			(*sql.RawBytes)(&r.Conversation), (*sql.RawBytes)(&r.Code)))
	})
	// A code of the wrong length (vecindex's error) is an internal one.
	return storeErr(err)
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

// VectorIndexLen is the number of codes in the in-memory vector index,
// once it is loaded: 0 when the store was opened WithoutSearchIndex, which
// builds none.
func (db *DB) VectorIndexLen() int {
	if db.codes == nil {
		return 0
	}
	return db.codes.Len()
}

// VectorIndexLoading reports whether the vector index is still loading
// (then VectorIndexLen would wait for it).
func (db *DB) VectorIndexLoading() bool {
	return db.codes != nil && !db.codes.Ready()
}
