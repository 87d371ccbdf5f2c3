package main

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"sort"
	"syscall"
	"testing"
	"time"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
	_ "github.com/mattn/go-sqlite3"
)

func TestExpBits(t *testing.T) {
	sqlite_vec.Auto()
	rng := rand.New(rand.NewPCG(1, 1))
	rb := func(n int) []byte {
		b := make([]byte, n/8)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return b
	}
	const n = 100000
	for _, nb := range []int{768, 1024, 2048} {
		db, _ := sql.Open("sqlite3", "file:"+filepath.Join(t.TempDir(), "x.db")+"?_journal_mode=WAL&_cache_size=-64000")
		db.SetMaxOpenConns(1)
		if _, err := db.Exec(fmt.Sprintf("CREATE VIRTUAL TABLE v USING vec0(doc_type text partition key, scope text, embedding bit[%d])", nb)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("PRAGMA mmap_size=1073741824"); err != nil {
			t.Fatal(err)
		}
		tx, _ := db.Begin()
		st, _ := tx.Prepare("INSERT INTO v(rowid, doc_type, scope, embedding) VALUES (?, 'memory', 'global', vec_bit(?))")
		for i := range n {
			if _, err := st.Exec(i+1, rb(nb)); err != nil {
				t.Fatal(err)
			}
		}
		tx.Commit()
		db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
		for _, k := range []int{10, 40, 60, 80, 100} {
			runtime.LockOSThread()
			var lat []time.Duration
			for range 40 {
				q := rb(nb)
				t0 := threadCPU()
				rows, err := db.Query("SELECT rowid FROM v WHERE embedding MATCH vec_bit(?) AND k = ? AND doc_type = 'memory' AND scope IN ('global')", q, k)
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
				}
				rows.Close()
				lat = append(lat, threadCPU()-t0)
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			t.Logf("bits %d k %d p50 %v", nb, k, lat[len(lat)/2])
		}
		db.Close()
	}
}

func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
