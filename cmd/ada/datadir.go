package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/mattn/go-sqlite3"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/storage"
)

// lockFile, in DATA_DIR, is locked by the process that uses the directory and
// holds its pid.
const lockFile = "ada.lock"

// openStore takes DATA_DIR for this process and opens the database in it,
// with opts besides DB_SYNC's. unlock gives the directory back; call it
// after closing the database.
func openStore(ctx context.Context, cfg *config.Config, opts ...storage.Option) (db *storage.DB, unlock func(), err error) {
	unlock, err = lockDataDir(cfg.DataDir)
	if err != nil {
		return nil, nil, err
	}
	path := cfg.DBPath()
	// SQLite says only "attempt to write a readonly database" when it meets
	// a file it cannot write; opening it here gives the real cause.
	if f, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrNotExist) {
		unlock()
		return nil, nil, dataDirError(cfg.DataDir, path, err)
	}
	db, err = storage.Open(ctx, path, append([]storage.Option{storage.WithSync(storage.Sync(cfg.DBSync))}, opts...)...)
	if err != nil {
		unlock()
		return nil, nil, dataDirError(cfg.DataDir, path, err)
	}
	return db, unlock, nil
}

// lockDataDir takes an exclusive lock on DATA_DIR, so that two processes
// never write one database (a server and a reindex with another embedder
// silently mix vectors). It is a flock: the kernel drops it when the process
// ends, however it ends, so a crash leaves no stale lock behind. The pid in
// the file only names the holder to the process that is refused.
func lockDataDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, dataDirError(dir, dir, err)
	}
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, dataDirError(dir, path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := io.ReadAll(io.LimitReader(f, 32))
		f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, dataDirError(dir, path, err)
		}
		pid := strings.TrimSpace(string(holder))
		if pid == "" {
			pid = "unknown"
		}
		return nil, fmt.Errorf("DATA_DIR=%s is in use by another Ada process (pid %s, see %s): stop it first, or give this one its own DATA_DIR", dir, pid, path)
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, dataDirError(dir, path, err)
	}
	return func() { f.Close() }, nil
}

// dataDirError names DATA_DIR, the path and, when it is one an operator can
// act on, the cause in plain words: SQLite's own message ("unable to open
// database file: no such file or directory") often hides it.
func dataDirError(dir, path string, err error) error {
	cause := osCause(err)
	var se sqlite3.Error
	if cause == "" && errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrReadonly:
			cause = "the database is read-only: Ada needs to write the file and DATA_DIR"
		case sqlite3.ErrFull:
			cause = osCause(syscall.ENOSPC)
		default:
			cause = osCause(se.SystemErrno)
		}
	}
	if cause == "" {
		return fmt.Errorf("DATA_DIR=%s: %w", dir, err)
	}
	return fmt.Errorf("DATA_DIR=%s: cannot write %s: %s", dir, path, cause)
}

// osCause names the errors that make a data directory unusable, with what
// to do; "" for any other error.
func osCause(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, syscall.EROFS):
		return "read-only file system: choose a DATA_DIR on a writable disk"
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("permission denied: the directory and its files must be writable by the user Ada runs as (uid %d)", os.Geteuid())
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return "disk full: free some space"
	case errors.Is(err, syscall.ENOTDIR):
		return "part of the path is a file, not a directory"
	}
	return ""
}
