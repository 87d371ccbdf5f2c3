package storagetest

import (
	"database/sql"
	"testing"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	_ "github.com/mattn/go-sqlite3" // the driver, as in storage
)

// PlainVec0 is the baseline of the insert benchmarks: an untuned sqlite-vec
// vec0 table of float32 vectors, with the connection settings of Ada's
// store as the benchmarks open it (storage.Open's defaults), durability
// included: synchronous=FULL, a commit synced before it returns, as
// DB_SYNC's default (a baseline at NORMAL skipped the sync each of Ada's
// commits pays, most of the gap the Scale table's insert column showed).
// Ada's inserts should be at least as fast.
type PlainVec0 struct{ db *sql.DB }

// OpenPlainVec0 creates the table in a new database file at path.
func OpenPlainVec0(tb testing.TB, path string) *PlainVec0 {
	tb.Helper()
	sqlite_vec.Auto()
	db, err := sql.Open("sqlite3", "file:"+path+"?_journal_mode=WAL&_synchronous=FULL&_busy_timeout=10000&_cache_size=-32000")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("CREATE VIRTUAL TABLE vec USING vec0(embedding float[768] distance_metric=cosine)"); err != nil {
		tb.Fatal(err)
	}
	return &PlainVec0{db: db}
}

// Put inserts vecs with rowids first, first+1, …, 100 to a transaction (as
// the benchmarks put Ada's documents), one INSERT each.
func (p *PlainVec0) Put(tb testing.TB, first int, vecs [][]float32) {
	tb.Helper()
	for start := 0; start < len(vecs); start += 100 {
		tx, err := p.db.Begin()
		if err != nil {
			tb.Fatal(err)
		}
		stmt, err := tx.Prepare("INSERT INTO vec (rowid, embedding) VALUES (?, ?)")
		if err != nil {
			tb.Fatal(err)
		}
		for i := start; i < min(start+100, len(vecs)); i++ {
			blob, _ := sqlite_vec.SerializeFloat32(vecs[i])
			if _, err := stmt.Exec(first+i, blob); err != nil {
				tb.Fatal(err)
			}
		}
		stmt.Close()
		if err := tx.Commit(); err != nil {
			tb.Fatal(err)
		}
	}
}

// Close closes the database.
func (p *PlainVec0) Close() error { return p.db.Close() }
