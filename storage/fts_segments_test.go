package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/ada-chat/ada/core"
)

// A write transaction adds one segment to the keyword index, however many
// documents it inserts: FTS5 writes its pending terms out as a segment at
// the commit, and also at every statement savepoint opened after it was
// written (a multi-row insert into any table opens one), which would make
// a batch several segments, each merged again later (migration 7).
func TestOneKeywordSegmentPerWrite(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	for round := range 4 {
		before := keywordSegmentsWritten(t, db)
		var docs []core.Document
		for i := range 100 {
			docs = append(docs, memoryDoc(fmt.Sprintf("note %d of round %d about apples", i, round), core.ScopeGlobal, 2))
		}
		how := "a Put"
		if round == 3 {
			how = "an Import"
			if _, err := db.Import(ctx, docs, nil); err != nil {
				t.Fatal(err)
			}
		} else if err := db.Put(ctx, docs...); err != nil {
			t.Fatal(err)
		}
		if got := keywordSegmentsWritten(t, db) - before; got != 1 {
			t.Fatalf("round %d: %s of 100 documents wrote %d keyword segments, want 1", round, how, got)
		}
	}
}

// keywordSegmentsWritten is the write counter of documents_fts's structure
// record (fts5_index.c: a 4-byte cookie, an optional version marker, then
// the varints nLevel, nSegment and nWriteCounter): the number of segments
// written, by flushes and merges.
func keywordSegmentsWritten(t *testing.T, db *DB) uint64 {
	t.Helper()
	var rec []byte
	if err := db.read.QueryRow("SELECT block FROM documents_fts_data WHERE id = 10").Scan(&rec); err != nil {
		t.Fatal(err)
	}
	i := 4
	if len(rec) >= 8 && rec[4] == 0xff && rec[5] == 0 && rec[6] == 0 && rec[7] == 1 {
		i = 8 // FTS5_STRUCTURE_V2
	}
	var v [3]uint64
	for k := range v {
		x, n := sqliteVarint(rec[i:])
		if n == 0 {
			t.Fatalf("bad structure record %x", rec)
		}
		v[k], i = x, i+n
	}
	return v[2]
}

// sqliteVarint decodes SQLite's big-endian varint (7 bits a byte, the
// ninth byte whole) and returns it with its length.
func sqliteVarint(b []byte) (uint64, int) {
	var x uint64
	for i := 0; i < len(b) && i < 9; i++ {
		if i == 8 {
			return x<<8 | uint64(b[i]), 9
		}
		x = x<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return x, i + 1
		}
	}
	return 0, 0
}
