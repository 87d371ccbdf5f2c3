package main

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	_ "github.com/mattn/go-sqlite3"
)

func qbits(v []float32) []byte {
	b := make([]byte, (len(v)+7)/8)
	for i, x := range v {
		if x > 0 {
			b[i/8] |= 1 << (i % 8)
		}
	}
	return b
}

func TestExpRaw(t *testing.T) {
	sqlite_vec.Auto()
	d := clusters(100000, 50, 1)
	for _, cs := range []int{1024, 2048} {
		db, _ := sql.Open("sqlite3", "file:"+filepath.Join(t.TempDir(), "x.db")+"?_journal_mode=WAL&_cache_size=-32000")
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(fmt.Sprintf("CREATE VIRTUAL TABLE v USING vec0(doc_type text partition key, scope text, embedding bit[768], chunk_size=%d)", cs)); err != nil {
			t.Fatal(err)
		}
		tx, _ := db.Begin()
		st, _ := tx.Prepare("INSERT INTO v(rowid, doc_type, scope, embedding) VALUES (?, 'memory', 'global', vec_bit(?))")
		for i, v := range d.vecs {
			if _, err := st.Exec(i+1, qbits(v)); err != nil {
				t.Fatal(err)
			}
		}
		tx.Commit()
		for _, k := range []int{10, 50, 100, 200} {
			for _, qsql := range []string{"SELECT rowid FROM v WHERE embedding MATCH vec_bit(?) AND k = ? AND doc_type = 'memory' AND scope IN ('global')", "SELECT rowid FROM v WHERE embedding MATCH vec_bit(?) AND k = ? AND doc_type = 'memory' AND scope = 'global'", "SELECT rowid FROM v WHERE embedding MATCH vec_bit(?) AND k = ? AND doc_type = 'memory'"} {
				var lat []time.Duration
				for _, q := range d.queries {
					t0 := time.Now()
					rows, err := db.Query(qsql, qbits(q), k)
					if err != nil {
						t.Fatal(err)
					}
					n := 0
					for rows.Next() {
						n++
					}
					rows.Close()
					lat = append(lat, time.Since(t0))
				}
				sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
				t.Logf("chunk %d k %d p50 %v %s", cs, k, lat[len(lat)/2], qsql[60:])
			}
		}
		db.Close()
	}
}
