package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/storage"
)

// buildAda builds the real binary once per test.
func buildAda(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ada")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

var listeningRE = regexp.MustCompile(`msg="API listening" addr=(\S+)`)

// startBinary runs `ada serve` as its own process and returns its URL.
func startBinary(t testing.TB, bin string, env map[string]string) (*exec.Cmd, string) {
	t.Helper()
	return startBinaryCmd(t, bin, "serve", env)
}

// startBinaryCmd runs `ada <command>` as its own process and returns its
// URL once the API listens.
func startBinaryCmd(t testing.TB, bin, command string, env map[string]string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, command)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listeningRE.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		return cmd, "http://" + a
	case <-time.After(60 * time.Second):
		t.Fatal("ada serve did not start")
	}
	return nil, ""
}

// SIGKILL during a burst of memory writes loses nothing that was
// acknowledged, and leaves a database that passes PRAGMA integrity_check.
func TestSIGKILLDuringWritesLosesNoAcknowledgedMemory(t *testing.T) {
	bin := buildAda(t)
	env := testEnv(t, map[string]string{"LLM_BASE_URL": llmtest.ClosedURL(t), "LOG_LEVEL": "INFO"})
	cmd, url := startBinary(t, bin, env)

	writers := startMemoryWriters(url, 8)
	// Kill once a good number of writes were acknowledged, in the middle of
	// the burst.
	writers.waitAcked(t, 300)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	_ = writers.halt() // the writes in flight at the kill fail
	acked := writers.acknowledged()
	t.Logf("%d memories acknowledged before SIGKILL", len(acked))

	// Restart on the same data directory: every acknowledged id is there.
	ada := startAda(t, "serve", env)
	missing := 0
	for _, id := range acked {
		if st := ada.call("GET", "/v1/memory/"+id, nil, nil); st != 200 {
			missing++
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d acknowledged memories are missing after SIGKILL and restart", missing, len(acked))
	}
	ada.stop()

	if err := storage.CheckIntegrity(context.Background(), filepath.Join(env["DATA_DIR"], "ada.db")); err != nil {
		t.Fatalf("after SIGKILL: %v", err)
	}
}
