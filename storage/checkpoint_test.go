package storage

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The WAL is checkpointed beside the writer (checkpointer). Under writes
// as fast as they come, a background checkpoint never catches up with the
// writer, and SQLite restarts the WAL only after one has: the writer then
// checkpoints itself, and the WAL stays bounded. 20,000 documents put the
// WAL past 100 MB without that; the bound here leaves room for a fast
// machine (a slow one keeps the WAL smaller).
func TestWALStaysBoundedUnderSustainedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 20,000 documents")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ada.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	docs := insertCorpus(20_000)
	var largest int64
	for i := 0; i < len(docs); i += 100 {
		if err := db.Put(ctx, docs[i:i+100]...); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(path + "-wal"); err == nil {
			largest = max(largest, st.Size())
		}
	}
	t.Logf("largest WAL: %.1f MB", float64(largest)/1e6)
	if largest > 64<<20 {
		t.Fatalf("the WAL grew to %.1f MB", float64(largest)/1e6)
	}
	// Every document is there, by id and by code, after a reopen.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if n := db.codes.Len(); n != len(docs) {
		t.Fatalf("%d codes after reopening, want %d", n, len(docs))
	}
	checkKeywordIndex(t, db, "20,000 inserts")
}
