package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core/llm/llmtest"
)

// A database that can no longer be written (here made immutable under the
// running server, as a read-only or failing disk would be) refuses writes
// with a clear 503, keeps answering reads, and takes writes again once it
// is writable.
func TestReadOnlyDatabaseRefusesWritesClearlyAndKeepsReading(t *testing.T) {
	env := testEnv(t, map[string]string{"LLM_BASE_URL": llmtest.ClosedURL(t)})
	ada := startAda(t, "serve", env)
	var m struct{ ID string }
	if st := ada.call("POST", "/v1/memory", map[string]any{"text": "The user likes green tea"}, &m); st != 201 {
		t.Fatalf("first write: %d", st)
	}
	dir := env["DATA_DIR"]
	// The main file and the WAL, where writes go; not the shared-memory
	// index, which SQLite maps into memory (an immutable mapping is a
	// SIGBUS, not a disk failure).
	files := []string{dir, filepath.Join(dir, "ada.db"), filepath.Join(dir, "ada.db-wal")}
	// chattr +i binds even root, whom file modes do not stop.
	if out, err := exec.Command("chattr", append([]string{"+i"}, files...)...).CombinedOutput(); err != nil {
		// Under CI=true nothing may skip: a runner where this cannot run
		// must fail loudly, not pass without the test.
		if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
			t.Fatalf("cannot make the database immutable (CI=true, so this is a failure, not a skip; chattr needs root on ext4 or similar): %v %s", err, out)
		}
		t.Skipf("cannot make the database immutable here (chattr needs root on ext4 or similar): %v %s", err, out)
	}
	writable := func() { _ = exec.Command("chattr", append([]string{"-i"}, files...)...).Run() }
	t.Cleanup(writable)

	var d detail
	if st := ada.call("POST", "/v1/memory", map[string]any{"text": "The user visits Rome in May"}, &d); st != 503 || !strings.Contains(d.Detail, "cannot be written") {
		t.Errorf("write to a read-only database: %d %q, want 503 saying it cannot be written", st, d.Detail)
	}
	if st := ada.call("GET", "/v1/memory/"+m.ID, nil, nil); st != 200 {
		t.Errorf("read by id from a read-only database: %d", st)
	}
	if st := ada.call("GET", "/v1/memory?q=tea", nil, nil); st != 200 {
		t.Errorf("search in a read-only database: %d", st)
	}

	writable()
	if st := ada.call("POST", "/v1/memory", map[string]any{"text": "The user visits Rome in June"}, nil); st != 201 {
		t.Fatalf("write once the database is writable again: %d", st)
	}
}
