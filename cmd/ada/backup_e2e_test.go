package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ada-chat/ada/storage"
)

// TestBackupWhileWritersRun takes `ada backup` of a running Ada while four
// writers add memories, then starts a second Ada on the copy: every memory
// acknowledged before the backup began is served from it.
func TestBackupWhileWritersRun(t *testing.T) {
	env := testEnv(t, nil)
	ada := startAda(t, "serve", env)
	writers := startMemoryWriters(ada.URL, 4)
	writers.waitAcked(t, 200)
	before := writers.acknowledged()

	dst := filepath.Join(t.TempDir(), "ada-backup.db")
	var out bytes.Buffer
	err := run(context.Background(), runEnv{args: []string{"backup", dst}, lookupEnv: mapEnv(env), stdout: &out, stderr: io.Discard})
	if err != nil {
		t.Fatalf("ada backup: %v", err)
	}
	if !strings.Contains(out.String(), "integrity ok") {
		t.Errorf("ada backup said %q, want it to report the integrity check", out.String())
	}
	writers.waitAcked(t, len(before)+50) // they went on during and after the backup
	if err := writers.halt(); err != nil {
		t.Fatalf("a writer failed: %v", err)
	}
	if err := storage.CheckIntegrity(context.Background(), dst); err != nil {
		t.Fatalf("the backup: %v", err)
	}
	// It holds the bot's encryption keys: for its owner's eyes only.
	checkMode(t, dst, 0o600)

	// A second backup to the same name is refused, and the first stays.
	err = run(context.Background(), runEnv{args: []string{"backup", dst}, lookupEnv: mapEnv(env), stdout: io.Discard, stderr: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a backup over an existing file: %v, want it refused", err)
	}

	// Restore as docs/operators.md says: cp makes the copy DATA_DIR/ada.db,
	// and it keeps the backup's mode.
	restored := testEnv(t, nil)
	db := filepath.Join(restored["DATA_DIR"], "ada.db")
	if out, err := exec.Command("cp", dst, db).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	checkMode(t, db, 0o600)
	ada2 := startAda(t, "serve", restored)
	missing := 0
	for _, id := range before {
		if st := ada2.call("GET", "/v1/memory/"+id, nil, nil); st != http.StatusOK {
			missing++
			if missing <= 3 {
				t.Errorf("memory %s, acknowledged before the backup, is %d in the restored Ada", id, st)
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d memories acknowledged before the backup are missing from it", missing, len(before))
	}
	var list struct {
		Items []json.RawMessage `json:"items"`
	}
	ada2.call("GET", "/v1/memory?limit=1", nil, &list)
	if len(list.Items) == 0 {
		t.Error("the restored Ada lists no memories")
	}
}

// checkMode fails the test unless path has exactly the permissions want.
func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s has mode %#o, want %#o", filepath.Base(path), got, want)
	}
}
