package storage

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ada-chat/ada/core"
)

// The database holds every memory and the bridge's encryption keys: a new
// one, and the WAL SQLite writes beside it, are readable by their owner
// only, whatever the process's umask.
func TestNewDatabaseIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ada.db")
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Put(context.Background(), memoryDoc("a private fact", core.ScopeGlobal, 3)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if mode := st.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s has mode %#o, want 0600", filepath.Base(p), mode)
		}
	}
}

// An operator's own choice of mode on an existing file is kept.
func TestExistingDatabaseKeepsItsMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ada.db")
	if err := os.WriteFile(path, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if mode := st.Mode().Perm(); mode != 0o640 {
		t.Errorf("ada.db has mode %#o, want the operator's 0640", mode)
	}
}
