package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"
)

// Backup writes a consistent copy of the database at src to dst while other
// processes may be writing it. It reads through a read-only connection of
// its own, so it needs neither the data directory's lock nor a pause of the
// server: VACUUM INTO copies one read transaction's snapshot, which holds
// every write committed before it began (WAL readers do not block the
// writer, nor it them). The copy is written beside dst under a temporary
// name, checked with integrity_check and only then renamed to dst, so dst is
// either a whole, checked backup or not there at all.
func Backup(ctx context.Context, src, dst string) error {
	db, err := openReadOnly(src)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer db.Close()
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("backup: %s already exists; choose a new file name", dst)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.partial")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpPath)

	// VACUUM INTO writes into the empty file CreateTemp made with mode
	// 0600, and the chmod makes sure of it: a backup holds the bot's
	// encryption keys and every memory, so only its owner may read it (as
	// an export), and a restore by cp keeps that mode.
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", tmpPath); err != nil {
		return fmt.Errorf("backup: copy %s: %w", src, err)
	}
	if err := os.Chmod(tmpPath, 0o600); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := CheckIntegrity(ctx, tmpPath); err != nil {
		return fmt.Errorf("backup: the copy failed its check: %w", err)
	}
	if err := syncFile(tmpPath); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(tmpPath, dst); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

// CheckIntegrity runs SQLite's integrity_check over the database at path,
// read-only, and returns its findings as an error when it finds any.
func CheckIntegrity(ctx context.Context, path string) error {
	registerVec.Do(sqlite_vec.Auto)
	// Not openReadOnly's connection: its WAL setting would try to change
	// the journal mode of a fresh copy, which a read-only one cannot.
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(problems) > 0 {
		return fmt.Errorf("integrity_check: %s", strings.Join(problems, "; "))
	}
	return nil
}

// openReadOnly opens an existing database file through a read-only
// connection of its own (with sqlite-vec, as its tables need): what the
// commands that read a running Ada's file use (backup, export, checks).
func openReadOnly(path string) (*sql.DB, error) {
	registerVec.Do(sqlite_vec.Auto)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	return sql.Open("sqlite3", dsn(path, true, SyncFull))
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
