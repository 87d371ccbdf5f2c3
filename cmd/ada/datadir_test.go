package main

import (
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/mattn/go-sqlite3"
)

// TestDataDirErrorNamesTheCause covers the causes a test cannot provoke on
// every machine (a read-only file system, a full disk, root ignoring modes).
func TestDataDirErrorNamesTheCause(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{&fs.PathError{Op: "open", Path: "/d/ada.lock", Err: syscall.EROFS}, "cannot write /d/ada.db: read-only file system"},
		{&fs.PathError{Op: "open", Path: "/d/ada.lock", Err: syscall.EACCES}, "cannot write /d/ada.db: permission denied"},
		{&fs.PathError{Op: "write", Path: "/d/ada.lock", Err: syscall.ENOSPC}, "cannot write /d/ada.db: disk full"},
		{fmt.Errorf("open /d/ada.db: %w", sqlite3.Error{Code: sqlite3.ErrReadonly}), "cannot write /d/ada.db: the database is read-only"},
		{fmt.Errorf("open /d/ada.db: %w", sqlite3.Error{Code: sqlite3.ErrFull}), "cannot write /d/ada.db: disk full"},
		{sqlite3.Error{Code: sqlite3.ErrCantOpen, SystemErrno: syscall.EACCES}, "cannot write /d/ada.db: permission denied"},
		{fmt.Errorf("migration 3 failed"), "DATA_DIR=/d: migration 3 failed"},
	}
	for _, tc := range cases {
		got := dataDirError("/d", "/d/ada.db", tc.err).Error()
		if !strings.HasPrefix(got, "DATA_DIR=/d: ") || !strings.Contains(got, tc.want) {
			t.Errorf("%v: %q, want it to contain %q", tc.err, got, tc.want)
		}
	}
}
