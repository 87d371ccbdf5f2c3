package storage

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

func TestTuneMmap(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("TUNE_N"))
	if n == 0 {
		t.Skip("TUNE_N not set")
	}
	ctx := context.Background()
	vecs, _ := tuneClusters(n, 100)
	path := filepath.Join(t.TempDir(), "t.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	for s := 0; s < n; s += 500 {
		var docs []core.Document
		for i := s; i < min(s+500, n); i++ {
			docs = append(docs, core.Document{ID: core.NewDocID(), Text: "x", Embedding: vecs[i],
				Meta: core.Metadata{Type: core.DocMemory, Timestamp: time.Now(), Source: core.SourceImport, Scope: core.ScopeGlobal, Importance: 3}})
		}
		if err := db.Put(ctx, docs...); err != nil {
			t.Fatal(err)
		}
	}
	db.write.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	for _, typ := range []string{"memory", "turn"} {
		for range 3 {
			t0 := time.Now()
			var c int
			if err := db.read.QueryRowContext(ctx, "SELECT count(*) FROM documents WHERE type = ?", typ).Scan(&c); err != nil {
				t.Fatal(err)
			}
			t.Logf("count %s = %d in %v", typ, c, time.Since(t0))
		}
	}
}
