package storage

import (
	"context"
	"database/sql"

	"github.com/ada-chat/ada/storage/vecindex"
)

// writeTx is a write transaction that records its changes to the codes, for
// the index to take after the commit.
type writeTx struct {
	*sql.Tx
	codes []vecindex.Op
	// cascadeReason, if set, is the history reason of the memories deleted
	// because their sources went (core.Change.Reason).
	cascadeReason string
	// putting are the ids of the documents the write puts, when one of
	// them has sources: they count as stored (checkSourcesRemain).
	putting map[string]bool
	// orphans are the memories the write's cascade deleted (core.Deleted).
	orphans []string
	// prepared are the writer's statements prepared at Open (DB.prepared);
	// stmts, those bound to this transaction so far, by query.
	prepared map[string]*sql.Stmt
	stmts    map[string]*sql.Stmt
	// keywordArgs and codeArgs are the keyword and code rows of the
	// documents inserted, not yet written (rowbatch.go).
	keywordArgs, codeArgs []any
	// keywordsChanged says documents were inserted or deleted, and with
	// them keyword rows: the write ends with a merge step (mergeKeywordSQL).
	// A reindex rewrites codes only.
	keywordsChanged bool
}

// stmt returns one of the writer's statements prepared at Open
// (preparedSQL), bound to tx. Preparing the insert of a document compiled
// its FTS5 trigger too: that and the other statements of a write, prepared
// afresh for every document, would be a large share of an insert's time
// (BenchmarkPut, pprof).
func (tx *writeTx) stmt(query string) *sql.Stmt {
	if s, ok := tx.stmts[query]; ok {
		return s
	}
	p := tx.prepared[query]
	if p == nil {
		panic("storage: " + query + " is not in preparedSQL")
	}
	if tx.stmts == nil {
		tx.stmts = make(map[string]*sql.Stmt)
	}
	// Bound on a context that cannot be cancelled, as are the statements
	// run below: with one that can (every request's, over HTTP), the SQLite
	// driver starts a goroutine for every statement to watch it. The
	// transaction itself still ends with its context (database/sql rolls it
	// back), so a cancelled request writes nothing.
	s := tx.StmtContext(context.Background(), p)
	tx.stmts[query] = s
	return s
}

// exec runs one of the prepared statements in tx (see stmt).
func (tx *writeTx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return tx.stmt(query).ExecContext(context.WithoutCancel(ctx), args...)
}

// queryRow runs one of the prepared queries for one row in tx (see stmt).
func (tx *writeTx) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return tx.stmt(query).QueryRowContext(context.WithoutCancel(ctx), args...)
}

// insertedCode records a document's code (vecindex.Quantize) written to
// documents_codes.
func (tx *writeTx) insertedCode(rowid int64, typ, scope, conversationID string, c []byte) {
	tx.codes = append(tx.codes, vecindex.Op{Rowid: rowid, Type: typ, Scope: scope, Conversation: conversationID, Code: vecindex.CodeOf(c)})
}

// deletedCode records a document's code deleted from documents_codes.
func (tx *writeTx) deletedCode(rowid int64) {
	tx.codes = append(tx.codes, vecindex.Op{Del: true, Rowid: rowid})
}
