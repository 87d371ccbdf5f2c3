package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/storage"
)

// smallDisk mounts a tmpfs of size bytes for the test: a real filesystem
// that runs out of space. Mounting needs root; under CI=true a runner that
// cannot mount fails the test instead of skipping it.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.Itoa(size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
			t.Fatalf("cannot mount a small tmpfs (CI=true, so this is a failure, not a skip; it needs root): %v %s", err, out)
		}
		t.Skipf("cannot mount a small tmpfs here (needs root): %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	return dir
}

// fill takes all but about leave bytes of the filesystem at dir, in one
// file that free removes.
func fill(t *testing.T, dir string, leave int64) (free func()) {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			t.Fatal(err)
		}
		left := int64(st.Bavail) * int64(st.Bsize)
		if left <= leave {
			break
		}
		n := min(int64(len(chunk)), left-leave)
		if _, err := f.Write(chunk[:n]); err != nil {
			break // full already
		}
	}
	return func() { _ = os.Remove(path) }
}

// TestDiskFullRefusesWritesClearlyAndRecovers: on a disk that fills up,
// memory writes fail with a clear 503 and lose nothing already stored,
// reads keep working, the database stays intact, and writes work again as
// soon as there is space.
func TestDiskFullRefusesWritesClearlyAndRecovers(t *testing.T) {
	disk := smallDisk(t, 24<<20)
	dataDir := filepath.Join(disk, "data")
	env := testEnv(t, map[string]string{"LLM_BASE_URL": llmtest.ClosedURL(t), "DATA_DIR": dataDir})
	ada := startAda(t, "serve", env)
	var stored []string
	write := func(i int) (int, detail) {
		var d struct {
			ID     string `json:"id"`
			Detail string `json:"detail"`
		}
		// Words of its own per memory, so that none is a near-duplicate of
		// another (which would refresh it instead of adding a row).
		var words []string
		for j := range 60 {
			words = append(words, fmt.Sprintf("w%dx%d", i, j))
		}
		st := ada.call("POST", "/v1/memory", map[string]any{"text": strings.Join(words, " ")}, &d)
		if st == 201 {
			stored = append(stored, d.ID)
		}
		return st, detail{Detail: d.Detail}
	}
	for i := range 20 {
		if st, d := write(i); st != 201 {
			t.Fatalf("write %d before the disk is full: %d %s", i, st, d.Detail)
		}
	}
	free := fill(t, disk, 32<<10)
	var refused detail
	status := 0
	for i := 20; i < 2000; i++ {
		st, d := write(i)
		if st != 201 {
			status, refused = st, d
			break
		}
	}
	if status != 503 || !strings.Contains(refused.Detail, "disk full") {
		t.Fatalf("a write to a full disk: %d %q, want 503 saying the disk is full", status, refused.Detail)
	}
	for _, id := range []string{stored[0], stored[len(stored)-1]} {
		if st := ada.call("GET", "/v1/memory/"+id, nil, nil); st != 200 {
			t.Errorf("reading %s from a full disk: %d", id, st)
		}
	}
	if st := ada.call("GET", "/v1/memory?search=fact", nil, nil); st != 200 {
		t.Errorf("searching on a full disk: %d", st)
	}

	free()
	if st, d := write(5000); st != 201 {
		t.Fatalf("a write once there is space again: %d %s", st, d.Detail)
	}
	ada.stop()
	db, err := storage.Open(context.Background(), filepath.Join(dataDir, "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ok string
	if err := db.Reader().QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q %v", ok, err)
	}
	for _, id := range stored {
		if _, err := db.Get(context.Background(), id); err != nil {
			t.Errorf("acknowledged memory %s lost: %v", id, err)
		}
	}
	t.Logf("%d memories acknowledged, the disk filled, writes refused with 503, then accepted again; none lost", len(stored))
}
