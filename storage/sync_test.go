package storage

import (
	"context"
	"path/filepath"
	"testing"
)

// DB_SYNC reaches every connection: the writer and the readers.
func TestOpenSetsSynchronous(t *testing.T) {
	for _, tc := range []struct {
		opts []Option
		want int // PRAGMA synchronous: 1 NORMAL, 2 FULL
	}{
		{nil, 2},
		{[]Option{WithSync(SyncFull)}, 2},
		{[]Option{WithSync(SyncNormal)}, 1},
	} {
		db, err := Open(context.Background(), filepath.Join(t.TempDir(), "ada.db"), tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		var w, r int
		if err := db.write.QueryRow("PRAGMA synchronous").Scan(&w); err != nil {
			t.Fatal(err)
		}
		if err := db.read.QueryRow("PRAGMA synchronous").Scan(&r); err != nil {
			t.Fatal(err)
		}
		if w != tc.want || r != tc.want {
			t.Errorf("options %d: synchronous writer %d, reader %d, want %d", len(tc.opts), w, r, tc.want)
		}
		db.Close()
	}
}
