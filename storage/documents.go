package storage

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/vecindex"
)

const (
	// insertDocumentSQL does nothing when the id is taken (see
	// putDocument).
	insertDocumentSQL = `INSERT INTO documents (id, type, scope, conversation_id, room_id, ts, text, metadata, embedding)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`
	selectDocumentColumns = `rowid, id, text, metadata, embedding`
	// selectDocumentTextColumns leave the embedding out: reading and
	// decoding 3 KiB per document is most of a listing's cost, and a
	// listing shows text.
	selectDocumentTextColumns = `rowid, id, text, metadata, NULL`
)

// Put inserts or replaces docs in one transaction.
func (db *DB) Put(ctx context.Context, docs ...core.Document) error {
	_, err := db.Apply(ctx, core.Change{Put: docs})
	return err
}

// Apply makes the deletions, insertions and history entries of c in one
// transaction. A missing id to delete is skipped: it is already gone.
func (db *DB) Apply(ctx context.Context, c core.Change) (core.Deleted, error) {
	put := encodeDocuments(&db.validated, c.Put)
	if err := put.firstErr(); err != nil {
		return core.Deleted{}, err
	}
	var orphans []string
	err := db.inTx(ctx, func(tx *writeTx) error {
		tx.cascadeReason, tx.putting = c.Reason, putting(c.Put)
		for _, id := range c.Delete {
			if err := deleteByID(ctx, tx, id, ""); err != nil && core.KindOf(err) != core.KindNotFound {
				return err
			}
		}
		for i := range c.Put {
			d, err := put.get(i)
			if err != nil {
				return err
			}
			if err := putDocument(ctx, tx, d); err != nil {
				return err
			}
		}
		if err := tx.flushRows(ctx); err != nil {
			return err
		}
		for _, h := range c.History {
			meta, err := json.Marshal(h.Meta)
			if err != nil {
				return core.Wrap(core.KindInternal, err, "encode metadata")
			}
			if err := insertHistory(ctx, tx, h, string(meta)); err != nil {
				return err
			}
		}
		orphans = tx.orphans
		return nil
	})
	if err != nil {
		return core.Deleted{}, err
	}
	return core.Deleted{IDs: c.Deleting(), Orphans: orphans}, nil
}

// encodedDoc is a document ready to be written: its metadata as JSON, its
// embedding as a blob and its binary code.
type encodedDoc struct {
	core.Document
	meta      string
	embedding []byte
	code      []byte
}

// encodeChunk is the number of documents an encoder takes at a time.
const encodeChunk = 8

// encoding is a batch of documents being validated and encoded (see
// encodeDocuments), in chunks of encodeChunk.
type encoding struct {
	memo *core.SchemaMemo
	docs []encodedDoc
	errs []error         // per chunk
	done []chan struct{} // per chunk, closed when encoded
}

// encodeDocuments validates and encodes docs: quantising a vector, the
// schema check and encoding the embedding and the metadata cost about a
// third of an insert, and need no lock. A small batch
// is encoded at once. A larger one is encoded by other goroutines, in
// order, while the write transaction inserts what is ready (encoding.get):
// the two overlap on two cores instead of adding up (BenchmarkPut). An
// invalid document then fails the transaction, which writes nothing.
func encodeDocuments(memo *core.SchemaMemo, docs []core.Document) *encoding {
	nChunks := (len(docs) + encodeChunk - 1) / encodeChunk
	e := &encoding{memo: memo, docs: make([]encodedDoc, len(docs)), errs: make([]error, nChunks), done: make([]chan struct{}, nChunks)}
	for c := range e.done {
		e.done[c] = make(chan struct{})
	}
	workers := min(runtime.GOMAXPROCS(0)-1, nChunks-1)
	if workers < 1 {
		for c := range nChunks {
			e.encode(docs, c)
		}
		return e
	}
	var next atomic.Int64
	for range workers {
		go func() {
			for c := int(next.Add(1) - 1); c < nChunks; c = int(next.Add(1) - 1) {
				e.encode(docs, c)
			}
		}()
	}
	return e
}

// encode encodes chunk c of docs.
func (e *encoding) encode(docs []core.Document, c int) {
	defer close(e.done[c])
	for i := c * encodeChunk; i < min((c+1)*encodeChunk, len(docs)); i++ {
		d := docs[i]
		d.Meta.Timestamp = d.Meta.Timestamp.UTC()
		meta, err := json.Marshal(d.Meta)
		if err != nil {
			e.errs[c] = core.Wrap(core.KindInternal, err, "encode metadata")
			return
		}
		// The metadata is checked as it is written (in UTC).
		if err := e.memo.ValidateEncoded(core.Schemas(), d, meta); err != nil {
			e.errs[c] = err
			return
		}
		e.docs[i] = encodedDoc{Document: d, meta: string(meta), embedding: floatsArg(d.Embedding), code: vecindex.Quantize(d.Embedding)}
	}
}

// get waits for document i to be encoded.
func (e *encoding) get(i int) (*encodedDoc, error) {
	c := i / encodeChunk
	<-e.done[c]
	if e.errs[c] != nil {
		return nil, e.errs[c]
	}
	return &e.docs[i], nil
}

// firstErr is the error of a batch encoded at once (small enough to have
// been), so that an invalid document fails before the write lock.
func (e *encoding) firstErr() error {
	for c := range e.done {
		select {
		case <-e.done[c]:
			if e.errs[c] != nil {
				return e.errs[c]
			}
		default:
			return nil
		}
	}
	return nil
}

// The statements of a document's write, prepared once on the writer (see
// writeTx.exec).
const (
	selectRowidByIDSQL = "SELECT rowid FROM documents WHERE id = ?"
	insertSourceSQL    = "INSERT OR IGNORE INTO memory_sources (source_id, memory_id) VALUES (?, ?)"
	deleteCodeSQL      = "DELETE FROM documents_codes WHERE rowid = ?"
	deleteDocumentSQL  = "DELETE FROM documents WHERE rowid = ?"
	selectRowidTypeSQL = "SELECT rowid, type FROM documents WHERE id = ?"
	insertKeywordSQL   = "INSERT INTO documents_fts (rowid, text, speaker) VALUES (?, ?, ?)"
)

// putDocument inserts d, replacing a document with the same id. A replaced
// document is deleted first (without cascading: it comes back at once) and
// gets a new rowid.
//
// The insert is tried first, and does nothing when the id is taken: a new
// document, the common case, costs no lookup. (A query in a transaction
// costs more than its row: database/sql starts a goroutine for each, to
// watch the transaction's context; BenchmarkPut, perf.)
func putDocument(ctx context.Context, tx *writeTx, d *encodedDoc) error {
	if err := checkSourcesRemain(ctx, tx, d); err != nil {
		return err
	}
	rowid, inserted, err := insertDocument(ctx, tx, d)
	if err != nil || inserted {
		return err
	}
	if err := tx.queryRow(ctx, selectRowidByIDSQL, d.ID).Scan(&rowid); err != nil {
		return storeErr(err)
	}
	if err := deleteRowids(ctx, tx, []int64{rowid}, false); err != nil {
		return err
	}
	if _, inserted, err = insertDocument(ctx, tx, d); err == nil && !inserted {
		err = core.Errorf(core.KindInternal, "document %s: id still taken after its deletion", d.ID)
	}
	return err
}

// checkSourcesRemain refuses a memory none of whose sources is stored
// (core.Orphaned), the documents of the same write counting as stored.
func checkSourcesRemain(ctx context.Context, tx *writeTx, d *encodedDoc) error {
	if len(d.Meta.SourceIDs) == 0 || slices.ContainsFunc(d.Meta.SourceIDs, func(id string) bool { return tx.putting[id] }) {
		return nil
	}
	stored, err := storedIDs(ctx, tx.Tx, d.Meta.SourceIDs)
	if err != nil {
		return err
	}
	if core.Orphaned(d.Meta, func(id string) bool { return stored[id] }) {
		return core.SourcesGone(d.ID)
	}
	return nil
}

// putting is the set of the ids of docs when one of them has sources
// (writeTx.putting), nil otherwise.
func putting(docs []core.Document) map[string]bool {
	if !slices.ContainsFunc(docs, func(d core.Document) bool { return len(d.Meta.SourceIDs) > 0 }) {
		return nil
	}
	ids := make(map[string]bool, len(docs))
	for _, d := range docs {
		ids[d.ID] = true
	}
	return ids
}

// storedIDs returns which of ids are stored, as tx sees them.
func storedIDs(ctx context.Context, tx *sql.Tx, ids []string) (map[string]bool, error) {
	stored := make(map[string]bool, len(ids))
	err := queryIDs(ctx, tx, "SELECT id FROM documents", ids, func(rows *sql.Rows) error {
		var id string
		err := rows.Scan(&id)
		stored[id] = true
		return err
	})
	return stored, err
}

// insertDocument inserts d, its keyword index row, its code and its
// sources unless its id is taken, and reports whether it did.
func insertDocument(ctx context.Context, tx *writeTx, d *encodedDoc) (rowid int64, inserted bool, err error) {
	res, err := tx.exec(ctx, insertDocumentSQL, d.ID, string(d.Meta.Type), d.Meta.Scope,
		nullable(d.Meta.ConversationID), nullable(d.Meta.RoomID), d.Meta.Timestamp.UnixNano(),
		d.Text, d.meta, d.embedding)
	if err != nil {
		return 0, false, storeErr(err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return 0, false, storeErr(err)
	}
	if rowid, err = res.LastInsertId(); err != nil {
		return 0, false, storeErr(err)
	}
	// The keyword index row, which no trigger writes (migration 7), with
	// the values of documents.text and documents.speaker (migration 21),
	// and the code, both written with others' (rowbatch.go).
	tx.keywordArgs = append(tx.keywordArgs, rowid, d.Text, keywordSpeaker(d.Document))
	tx.keywordsChanged = true
	tx.codeArgs = append(tx.codeArgs, rowid, string(d.Meta.Type), d.Meta.Scope, d.Meta.ConversationID, d.code)
	tx.insertedCode(rowid, string(d.Meta.Type), d.Meta.Scope, d.Meta.ConversationID, d.code)
	for _, src := range d.Meta.SourceIDs {
		if _, err := tx.exec(ctx, insertSourceSQL, src, d.ID); err != nil {
			return 0, false, storeErr(err)
		}
	}
	return rowid, true, nil
}

// Get returns the document id, with its embedding.
func (db *DB) Get(ctx context.Context, id string) (core.Document, error) {
	rows, err := db.read.QueryContext(ctx, "SELECT "+selectDocumentColumns+" FROM documents WHERE id = ?", id)
	if err != nil {
		return core.Document{}, storeErr(err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return core.Document{}, storeErr(err)
		}
		return core.Document{}, core.Errorf(core.KindNotFound, "document %s not found", id)
	}
	d, _, err := scanDocument(rows)
	return d, storeErr(err)
}

// Delete removes the document id only if it has type t.
func (db *DB) Delete(ctx context.Context, id string, t core.DocType) error {
	return db.inTx(ctx, func(tx *writeTx) error { return deleteByID(ctx, tx, id, t) })
}

func deleteByID(ctx context.Context, tx *writeTx, id string, t core.DocType) error {
	var rowid int64
	var typ string
	err := tx.queryRow(ctx, selectRowidTypeSQL, id).Scan(&rowid, &typ)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && t != "" && typ != string(t)) {
		what := "document"
		if t != "" {
			what = string(t)
		}
		return core.Errorf(core.KindNotFound, "%s %s not found", what, id)
	}
	if err != nil {
		return storeErr(err)
	}
	return deleteRowids(ctx, tx, []int64{rowid}, true)
}

// DeleteWhere removes every document matching f, with the memories the
// cascade takes.
func (db *DB) DeleteWhere(ctx context.Context, f core.Filter) (core.Deleted, error) {
	var gone core.Deleted
	err := db.inTx(ctx, func(tx *writeTx) error {
		var err error
		gone.IDs, err = deleteMatching(ctx, tx, f)
		gone.Orphans = tx.orphans
		return err
	})
	if err != nil {
		return core.Deleted{}, err
	}
	return gone, nil
}

// deleteMatching deletes the documents matching f and returns their ids.
func deleteMatching(ctx context.Context, tx *writeTx, f core.Filter) ([]string, error) {
	where, args := filterSQL(f)
	rows, err := tx.QueryContext(ctx, "SELECT rowid, id, type, metadata FROM documents"+where, args...)
	if err != nil {
		return nil, storeErr(err)
	}
	var rowids []int64
	var ids []string
	var memories []core.HistoryEntry // the record of each memory that goes
	for rows.Next() {
		var (
			r            int64
			id, typ, raw string
		)
		if err := rows.Scan(&r, &id, &typ, &raw); err != nil {
			rows.Close()
			return nil, storeErr(err)
		}
		rowids, ids = append(rowids, r), append(ids, id)
		if core.DocType(typ) == core.DocMemory {
			var m core.Metadata
			if err := json.Unmarshal([]byte(raw), &m); err != nil {
				rows.Close()
				return nil, storeErr(err)
			}
			memories = append(memories, core.HistoryEntry{MemoryID: id, Event: core.HistoryDelete, Meta: m, Reason: core.DeletionReason(f)})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, storeErr(err)
	}
	if err := deleteRowids(ctx, tx, rowids, true); err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	for _, h := range memories {
		h.Time = now
		meta, err := json.Marshal(h.Meta)
		if err != nil {
			return nil, storeErr(err)
		}
		if err := insertHistory(ctx, tx, h, string(meta)); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// Replace deletes every document matching f and inserts docs, atomically.
func (db *DB) Replace(ctx context.Context, f core.Filter, docs ...core.Document) error {
	if where, _ := filterSQL(f); where == "" {
		return core.Errorf(core.KindInternal, "replace needs a filter")
	}
	put := encodeDocuments(&db.validated, docs)
	if err := put.firstErr(); err != nil {
		return err
	}
	return db.inTx(ctx, func(tx *writeTx) error {
		tx.putting = putting(docs)
		if _, err := deleteMatching(ctx, tx, f); err != nil {
			return err
		}
		for i := range docs {
			d, err := put.get(i)
			if err != nil {
				return err
			}
			if err := putDocument(ctx, tx, d); err != nil {
				return err
			}
		}
		return tx.flushRows(ctx)
	})
}

// List returns up to limit documents matching f, newest first, without
// their embeddings (Get and the searches return them).
func (db *DB) List(ctx context.Context, f core.Filter, limit int) ([]core.Document, error) {
	where, args := filterSQL(f)
	args = append(args, limit)
	rows, err := db.read.QueryContext(ctx, "SELECT "+selectDocumentTextColumns+" FROM "+listSource(f)+where+
		" ORDER BY ts DESC, id DESC LIMIT ?", args...)
	if err != nil {
		return nil, storeErr(err)
	}
	defer rows.Close()
	var out []core.Document
	for rows.Next() {
		d, _, err := scanDocument(rows)
		if err != nil {
			return nil, storeErr(err)
		}
		out = append(out, d)
	}
	return out, storeErr(rows.Err())
}

// listSource is the table List reads. Turns looked up by their index in a
// conversation (a recalled turn's neighbours, a summary's range) are read
// through documents_turn_index (migration 8): without statistics SQLite
// prefers the conversation index, which gives List's order but reads, and
// parses the metadata of, every turn of the conversation.
func listSource(f core.Filter) string {
	if f.ConversationID != "" && (f.AfterTurn != nil || f.UpToTurn != nil || len(f.TurnIndexes) > 0) {
		return "documents INDEXED BY documents_turn_index"
	}
	return "documents"
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// scanDocument is the one place a documents row becomes a core.Document.
// The embedding (NULL when not selected) is decoded from the driver's
// buffer, not from a copy of it: RawBytes saves one 3 KiB allocation per
// document.
// extra receives the columns selected after the document's.
func scanDocument(rows *sql.Rows, extra ...any) (core.Document, int64, error) {
	var (
		d     core.Document
		rowid int64
		meta  sql.RawBytes
		emb   sql.RawBytes
	)
	if err := rows.Scan(append([]any{&rowid, &d.ID, &d.Text, &meta, &emb}, extra...)...); err != nil {
		return d, 0, err
	}
	if err := json.Unmarshal(meta, &d.Meta); err != nil {
		return d, 0, fmt.Errorf("document %s: corrupt metadata: %w", d.ID, err)
	}
	if emb != nil {
		d.Embedding = decodeFloats(emb)
	}
	return d, rowid, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// encodeFloats is v as little-endian float32s, the embedding column's
// format; on a little-endian machine, a copy of v's memory (a loop of
// PutUint32 costs microseconds a vector, and decodeFloats as much for
// every document a search loads).
func encodeFloats(v []float32) []byte {
	b := make([]byte, 4*len(v))
	if littleEndian {
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(b)))
		return b
	}
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// floatsArg is encodeFloats(v) for a statement's argument: on a
// little-endian machine v's own memory, not a copy. The driver copies a
// blob as it binds it (SQLITE_TRANSIENT), so the 3 KiB copy of every
// document written, and its garbage, would buy nothing. v must not change
// before the statement has run.
func floatsArg(v []float32) []byte {
	if !littleEndian || len(v) == 0 {
		return encodeFloats(v)
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v))
}

func decodeFloats(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	if littleEndian {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v)), b)
		return v
	}
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

// littleEndian is whether this machine stores a float32 as the embedding
// column does.
var littleEndian = func() bool {
	x := uint32(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// keywordSpeaker is what documents.speaker computes for d (migration 21):
// a turn's speaker, else NULL. The keyword index is told the same value on
// insert as its triggers read on delete, or the index would break.
func keywordSpeaker(d core.Document) any {
	if d.Meta.Type != core.DocTurn || d.Meta.Speaker == "" {
		return nil
	}
	return d.Meta.Speaker
}
