package storage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A store of schema version 15 quoted the newer memory's text in a
// correction's reason, and kept the older versions' words after the newer
// memory was deleted. Migration 16 keeps the reason's id and drops its
// words, and blanks the words of the versions whose newer memory is gone;
// a correction whose newer memory lives keeps its older version's words
// (the spec: a retired memory is kept in its history). The upgrade
// vacuums once: what version 15 deleted stayed in free pages.
func TestMigrationDropsTheWordsOfForgottenCorrections(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ada.db")
	// As version 15 opened it: without secure_delete.
	old := storeAtVersion(t, strings.Replace(dsn(path, false, SyncFull), "_secure_delete=on", "_secure_delete=off", 1), 15)
	const (
		a1, a2 = "doc-00000000-0000-4000-8000-0000000000a1", "doc-00000000-0000-4000-8000-0000000000a2"
		b1, b2 = "doc-00000000-0000-4000-8000-0000000000b1", "doc-00000000-0000-4000-8000-0000000000b2"
	)
	for _, row := range [][4]string{
		{a1, "create", "Sam's pin is 1111", ""},
		{a2, "create", "Sam's pin is 2222", ""},
		{a1, "retire", "Sam's pin is 1111", "replaced by " + a2 + ": Sam's pin is 2222"},
		{a2, "delete", "", "deleted on request"},
		{b1, "create", "Kim's pin is 4444", ""},
		{b2, "create", "Kim's pin is 5555", ""},
		{b1, "retire", "Kim's pin is 4444", "replaced by " + b2 + ": Kim's pin is 5555"},
	} {
		if _, err := old.ExecContext(ctx, `INSERT INTO memory_history (memory_id, ts, event, text, metadata, reason)
			VALUES (?, 1, ?, ?, '{"type":"memory","tags":["pin"]}', ?)`, row[0], row[1], row[2], row[3]); err != nil {
			t.Fatal(err)
		}
	}
	// A document deleted before the upgrade leaves its words in free
	// pages; the upgrade's VACUUM takes them.
	if _, err := old.ExecContext(ctx, `INSERT INTO memory_history (memory_id, ts, event, text, metadata)
		VALUES ('doc-x', 1, 'create', ?, '{}')`, strings.Repeat("Sam's pin is vorpalsnick ", 200)); err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(ctx, `DELETE FROM memory_history WHERE memory_id = 'doc-x'`); err != nil {
		t.Fatal(err)
	}
	old.Close()
	if data, _ := os.ReadFile(path); !bytes.Contains(data, []byte("vorpalsnick")) {
		t.Fatal("the deleted words are not in the file before the upgrade: the test shows nothing")
	}

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, id := range []string{a1, b1} {
		h, err := db.History(ctx, id)
		if err != nil || len(h) != 2 {
			t.Fatalf("history of %s: %+v %v", id, h, err)
		}
		newer := map[string]string{a1: a2, b1: b2}[id]
		if h[1].Reason != "replaced by a newer memory "+newer {
			t.Errorf("%s's retire reason = %q", id, h[1].Reason)
		}
		forgotten := id == a1
		for _, e := range h {
			if blank := e.Text == "" && len(e.Meta.Tags) == 0; blank != forgotten {
				t.Errorf("%s: %s entry %+v; forgotten = %v", id, e.Event, e, forgotten)
			}
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); bytes.Contains(data, []byte("vorpalsnick")) {
		t.Error("words deleted before the upgrade are still in the file")
	}
	db, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var reasons string
	if err := db.Reader().QueryRowContext(ctx, "SELECT group_concat(reason) FROM memory_history").Scan(&reasons); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(reasons, "pin") {
		t.Errorf("a reason still quotes a memory: %s", reasons)
	}
}
