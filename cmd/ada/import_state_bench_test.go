package main

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// BenchmarkScanSource reads the fingerprints ada migrate-store compares a
// target that is not empty with: a SQLite store of 100,000 documents and
// 100,000 history entries. It reports the heap the fingerprints hold
// (state-MiB), which grows with the store.
func BenchmarkScanSource(b *testing.B) {
	const n = 100_000
	ctx := context.Background()
	env := testEnv(b, nil)
	db := openEnvStore(b, env)
	putGenerated(b, db, n, func(i int, d *core.Document) { d.Meta.Type, d.Meta.Importance = core.DocMemory, 1+i%5 })
	list, err := db.List(ctx, core.Filter{}, n)
	if err != nil {
		b.Fatal(err)
	}
	history := make([]core.HistoryEntry, 0, len(list))
	for _, d := range list {
		history = append(history, core.HistoryEntry{MemoryID: d.ID, Event: core.HistoryCreate, Time: time.Now(), Text: d.Text, Meta: d.Meta})
	}
	if _, err := db.Import(ctx, nil, history); err != nil {
		b.Fatal(err)
	}
	db.Close()
	snap, err := storage.OpenSnapshot(ctx, filepath.Join(env["DATA_DIR"], "ada.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer snap.Close()
	if snap.Documents != n || snap.History != n {
		b.Fatalf("the store holds %d documents and %d history entries, want %d of each", snap.Documents, snap.History, n)
	}
	b.ResetTimer()
	for range b.N {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		st, err := scanSource(ctx, snap)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(st)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "state-MiB")
	}
}
