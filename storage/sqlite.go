package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	"github.com/mattn/go-sqlite3"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/vecindex"
)

// registerVec installs sqlite-vec as an auto-extension for every SQLite
// connection the process opens. It is process-wide by nature
// (sqlite3_auto_extension), so it is our one deliberate global, done once.
var registerVec sync.Once

// DB is Ada's SQLite database: the document store and, through Bridge, the
// Matrix bridge's state. Writer hands mautrix its crypto and room-state
// stores, which own their tables in the same file.
type DB struct {
	path string
	// write has a single connection: SQLite allows one writer at a time, and
	// queueing writers in the pool instead of in SQLite's busy handler means
	// no "database is locked" under load.
	write *sql.DB
	// read has several connections; in WAL mode readers never block the writer.
	read *sql.DB
	// writeMu serialises write transactions with their code index updates.
	writeMu sync.Mutex
	// codes is the in-memory index of the binary codes that vector searches
	// scan, in step with documents_codes (see loadCodes); nil when the store
	// was opened WithoutSearchIndex.
	codes *vecindex.Index
	// effort is what a vector search reads (see searchEffort): the zero
	// value, the defaults, but in the benchmark comparing others.
	effort searchEffort
	// stopLoad stops the index's background load, if any, and waits for it
	// (see loadCodesInBackground).
	stopLoad func()
	// docs keeps the documents searches returned lately (see docCache).
	docs *docCache
	// candidates holds an approximate search's rescored candidates
	// (*[]scoredDoc) between searches: a copy of each cached document, 39
	// KB a search at 1,000 rows, the most any one place of it allocated
	// (pprof, BenchmarkMemorySearchHTTPLoop).
	candidates sync.Pool
	// terms remembers how common keyword query terms are (see termCounts).
	terms termCounts
	// validated remembers the metadata that passed the schema check
	// (core.SchemaMemo, encodeDocuments).
	validated core.SchemaMemo
	// findPostings and scoredRows are maxPostings and maxScoredRows;
	// tests lower them to search a small store as a large one is searched
	// (rarestTerms, rankKeyword).
	findPostings int64
	scoredRows   int
	// prepared are the statements of a document's write, prepared once on
	// the writer (see writeTx.stmt).
	prepared map[string]*sql.Stmt
	// ckpt checkpoints the WAL beside the writer (see checkpointer).
	ckpt *checkpointer
	// schemaBefore is the schema version the file had before Open migrated
	// it: 0 for a new database.
	schemaBefore int
}

// SchemaUpgrade is the schema version the database had before this Open
// and the one it has now: equal when no migration ran, from 0 for a new
// database. Upgrades say what they did with it.
func (db *DB) SchemaUpgrade() (from, to int) {
	return db.schemaBefore, LatestSchemaVersion()
}

// preparedSQL are the statements prepared at Open: those that run once per
// document written or deleted.
var preparedSQL = []string{selectRowidByIDSQL, insertDocumentSQL, insertKeywordSQL, insertCodeSQL, insertSourceSQL,
	deleteCodeSQL, deleteDocumentSQL, selectRowidTypeSQL, mergeKeywordSQL}

var _ core.Store = (*DB)(nil)

// Sync is how SQLite makes a commit durable: the DB_SYNC setting's values,
// which SQLite's synchronous pragma takes as they are.
type Sync string

const (
	// SyncFull syncs the WAL at every commit: a write acknowledged is on
	// disk, whatever happens next.
	SyncFull Sync = "full"
	// SyncNormal syncs at checkpoints only: the database never corrupts,
	// but a power loss (not a crash of the process) may lose the writes of
	// the last moments before it.
	SyncNormal Sync = "normal"
)

// Option changes how Open opens the database.
type Option func(*options)

type options struct {
	sync       Sync
	noSearch   bool
	loadFailed func(error)
	loaded     func(rows int, took time.Duration)
}

// WithSync sets the commit durability; SyncFull when not given.
func WithSync(s Sync) Option { return func(o *options) { o.sync = s } }

// WithoutSearchIndex opens a store that is not searched: the local file
// that keeps the bridge's state while the documents are on a Chroma server
// (VECTORDB_URL). The in-memory vector index is neither loaded, which costs
// a pass over every document's code at Open, nor kept: writes still keep
// documents_codes, so the file opened later without this option finds its
// index whole. A search that comes anyway reads SQLite alone (an exact
// scan; a keyword search joined in SQL): the same answers, slower.
func WithoutSearchIndex() Option { return func(o *options) { o.noSearch = true } }

// WithLoadErrors has f told of each failed attempt to load the in-memory
// vector index (an I/O error, a damaged code): the load is tried again,
// and vector searches scan SQLite meanwhile, slower but with the same
// answers, so only the operator's log would say why. f runs on the
// loading goroutine.
func WithLoadErrors(f func(error)) Option { return func(o *options) { o.loadFailed = f } }

// WithLoadDone has f told when the in-memory vector index has loaded: how
// many codes it holds and how long the load took (until then, vector
// searches scan SQLite, so an operator reading the log after a restart
// knows when searches are fast again). f runs on the loading goroutine.
func WithLoadDone(f func(rows int, took time.Duration)) Option {
	return func(o *options) { o.loaded = f }
}

// dsn puts every per-connection setting in the connection string, so that
// each pooled connection gets them (a PRAGMA run once would reach only one).
func dsn(path string, readOnly bool, sync Sync) string {
	q := url.Values{}
	q.Set("_journal_mode", "WAL") // readers and the writer do not block each other
	q.Set("_synchronous", string(sync))
	q.Set("_busy_timeout", "10000") // wait for a lock instead of failing at once
	q.Set("_foreign_keys", "on")
	q.Set("_cache_size", "-32000") // 32 MiB page cache per connection
	// Deleted content is overwritten with zeros, so that forgotten words
	// do not stay in free pages and free space of the file (DECISIONS.md,
	// "Identities, walls and forgetting"); the keyword index does the same
	// for its terms (migration 16).
	q.Set("_secure_delete", "on")
	if readOnly {
		q.Set("mode", "ro")
		// A reader keeps the statements it ran last, reset, and reuses one
		// whose text comes again: a search's few statements recur, and
		// compiling them was a fifth of a 1k store's keyword search (pprof,
		// BenchmarkMemorySearchHTTPLoop). SQLite recompiles a kept
		// statement itself when the schema changes.
		q.Set("_stmt_cache_size", "32")
	} else {
		// BEGIN IMMEDIATE takes the write lock up front, so a transaction
		// never fails half-way when it upgrades from read to write.
		q.Set("_txlock", "immediate")
	}
	return "file:" + path + "?" + q.Encode()
}

// Open opens (creating if needed) the database at path and applies pending
// migrations.
func Open(ctx context.Context, path string, opts ...Option) (*DB, error) {
	o := options{sync: SyncFull}
	for _, opt := range opts {
		opt(&o)
	}
	registerVec.Do(sqlite_vec.Auto)
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	write, err := sql.Open("sqlite3", dsn(path, false, o.sync))
	if err != nil {
		return nil, err
	}
	write.SetMaxOpenConns(1)
	applied, err := migrate(ctx, write)
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	before := LatestSchemaVersion() - applied
	if err := vacuumAfterUpgrade(ctx, write, before); err != nil {
		write.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	read, err := sql.Open("sqlite3", dsn(path, true, o.sync))
	if err != nil {
		write.Close()
		return nil, err
	}
	read.SetMaxOpenConns(8)
	ckpt, err := startCheckpointer(ctx, path, o.sync, write)
	if err != nil {
		read.Close()
		write.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	db := &DB{path: path, write: write, read: read, docs: newDocCache(), findPostings: maxPostings, scoredRows: maxScoredRows,
		prepared: make(map[string]*sql.Stmt, len(preparedSQL)+len(batchedSQL())), ckpt: ckpt,
		schemaBefore: before}
	if err := db.Ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	for _, q := range slices.Concat(preparedSQL, batchedSQL()) {
		s, err := write.PrepareContext(ctx, q)
		if err != nil {
			db.Close()
			return nil, fmt.Errorf("open %s: prepare %q: %w", path, q, err)
		}
		db.prepared[q] = s
	}
	if o.noSearch {
		return db, nil
	}
	db.loadCodesInBackground(o.loadFailed, o.loaded)
	return db, nil
}

// Close stops the checkpointer, closes the readers, then copies the WAL
// into the database and truncates it to nothing before closing the writer:
// after a clean stop no page of the WAL, old versions of rows with
// forgotten words among them, is left in any file. (The last connection to
// close would checkpoint too, but not if a reader still held the WAL, and
// it leaves the decision to SQLite.)
func (db *DB) Close() error {
	if db.stopLoad != nil {
		db.stopLoad()
	}
	db.ckpt.stop()
	for _, s := range db.prepared {
		s.Close()
	}
	errRead := db.read.Close()
	var errCkpt error
	if _, err := db.write.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		errCkpt = fmt.Errorf("checkpoint at close: %w", err)
	}
	return errors.Join(errRead, errCkpt, db.write.Close())
}

// Path is the database file.
func (db *DB) Path() string { return db.path }

// Writer and Reader expose the pools to the bridge's own tables (sync state,
// crypto store, room settings), which live in the same file.
func (db *DB) Writer() *sql.DB { return db.write }
func (db *DB) Reader() *sql.DB { return db.read }

// Ping checks both pools and that sqlite-vec is loaded.
func (db *DB) Ping(ctx context.Context) error {
	_, err := db.Status(ctx)
	return err
}

// inTx runs fn in one write transaction. The changes fn records to the
// codes reach the in-memory index only once the transaction has committed.
func (db *DB) inTx(ctx context.Context, fn func(*writeTx) error) error {
	// Commit and the code index's update are one step for other writers:
	// otherwise a later transaction's update could be applied first, and
	// SQLite reuses the largest rowid after a delete, so a delete applied
	// late would remove the new document that took its rowid.
	db.writeMu.Lock()
	defer db.writeMu.Unlock()
	sqlTx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return storeErr(err)
	}
	defer sqlTx.Rollback()
	tx := &writeTx{Tx: sqlTx, prepared: db.prepared}
	if err := fn(tx); err != nil {
		return storeErr(err)
	}
	if err := tx.flushRows(ctx); err != nil {
		return err
	}
	if tx.keywordsChanged {
		if _, err := tx.exec(ctx, mergeKeywordSQL); err != nil {
			return storeErr(err)
		}
	}
	if err := sqlTx.Commit(); err != nil {
		return storeErr(err)
	}
	if db.codes != nil {
		db.codes.Apply(tx.codes)
	}
	db.docs.forget(tx.codes)
	db.ckpt.writerCheckpoint(db.write)
	db.ckpt.kick()
	return nil
}

// storeErr marks a database failure as internal; core errors pass through.
func storeErr(err error) error {
	if err == nil {
		return nil
	}
	var ce *core.Error
	if errors.As(err, &ce) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return core.Wrap(core.KindCanceled, err, "request cancelled")
	}
	// The file cannot be written: the disk is full, read-only or failing.
	// The operator must act; the client learns to retry later (503).
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrReadonly, sqlite3.ErrFull, sqlite3.ErrIoErr, sqlite3.ErrCantOpen, sqlite3.ErrPerm:
			return core.Wrap(core.KindUnavailable, err, "the database cannot be written (disk full, read-only or failing): changes are refused until that is fixed; reading still works")
		}
	}
	return core.Wrap(core.KindInternal, err, "database error")
}

// checkpointer copies the WAL's committed pages into the database file on a
// connection of its own, so that the writer does not. SQLite's automatic
// checkpoint runs in the commit that takes the WAL past 1,000 pages: that
// commit copies them and syncs both files, half of a batch of inserts'
// commit time (BenchmarkPut). Here the writer's automatic checkpoint is off
// and a passive checkpoint (it never blocks the writer or readers) runs
// at most checkpointEvery after a write transaction commits, and every
// checkpointIdle in any case (the bridge's writes do not go through
// inTx). With synchronous=NORMAL (DB_SYNC=normal), a commit is durable
// against power loss once checkpointed, within checkpointEvery.
//
// A checkpoint beside a busy writer never quite catches up with it (the
// writer appends while it copies), and SQLite starts the WAL afresh only
// at a write that finds every page copied: when the WAL holds more than
// walPagesLimit pages, the writer checkpoints once itself, after its next
// commit and before any other write (writerCheckpoint), as SQLite's own
// checkpoint would, so the WAL stays bounded
// (TestWALStaysBoundedUnderSustainedWrites).
type checkpointer struct {
	conn    *sql.DB
	kickCh  chan struct{}
	stopCh  chan struct{}
	stopped chan struct{}
	behind  atomic.Bool // the WAL held more than walPagesLimit pages, copied or not (TestWALStaysBoundedUnderSustainedWrites)
}

const (
	checkpointEvery = 100 * time.Millisecond
	checkpointIdle  = time.Second
	walPagesLimit   = 4000
)

func startCheckpointer(ctx context.Context, path string, sync Sync, write *sql.DB) (*checkpointer, error) {
	conn, err := sql.Open("sqlite3", dsn(path, false, sync))
	if err != nil {
		return nil, err
	}
	conn.SetMaxOpenConns(1)
	// The writer pool has one connection, kept open: the setting stays.
	// Were it replaced, its automatic checkpoint would be back, which
	// costs time and nothing else.
	if _, err := write.ExecContext(ctx, "PRAGMA wal_autocheckpoint = 0"); err != nil {
		conn.Close()
		return nil, err
	}
	c := &checkpointer{conn: conn, kickCh: make(chan struct{}, 1), stopCh: make(chan struct{}), stopped: make(chan struct{})}
	go c.run()
	return c, nil
}

func (c *checkpointer) run() {
	defer close(c.stopped)
	idle := time.NewTicker(checkpointIdle)
	defer idle.Stop()
	for {
		select {
		case <-c.stopCh:
			return
		case <-c.kickCh:
		case <-idle.C:
		}
		// A failure (a full or read-only disk) leaves the pages in the
		// WAL, where readers find them; the next round tries again.
		var busy, log, done int
		if err := c.conn.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &log, &done); err == nil && log > walPagesLimit {
			c.behind.Store(true)
		}
		select {
		case <-c.stopCh:
			return
		case <-time.After(checkpointEvery):
		}
	}
}

// writerCheckpoint checkpoints on the writer, which no write can race, if
// the background checkpoints fell behind (see checkpointer). The caller
// holds the write lock, just after a commit.
func (c *checkpointer) writerCheckpoint(write *sql.DB) {
	if c.behind.CompareAndSwap(true, false) {
		write.Exec("PRAGMA wal_checkpoint(PASSIVE)")
	}
}

// kick asks for a checkpoint after a commit.
func (c *checkpointer) kick() {
	select {
	case c.kickCh <- struct{}{}:
	default:
	}
}

// stop ends the checkpoints and closes their connection.
func (c *checkpointer) stop() {
	if c == nil {
		return
	}
	select {
	case <-c.stopCh:
		return // already stopped
	default:
	}
	close(c.stopCh)
	<-c.stopped
	c.conn.Close()
}

// createPrivate creates a new database file readable by its owner only:
// it holds every memory and the bridge's encryption keys, and SQLite gives
// its WAL and shared-memory files the database file's mode. An existing
// file keeps the mode its operator chose.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case errors.Is(err, fs.ErrExist):
		return nil
	case err != nil:
		return fmt.Errorf("create %s: %w", path, err)
	}
	return f.Close()
}
