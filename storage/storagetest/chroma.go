package storagetest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// ChromaBin is the Chroma launcher `make chroma` installs (npm chromadb
// 3.0.6, a Chroma 1.0 server), or ADA_CHROMA_BIN.
func ChromaBin() string {
	if bin := os.Getenv("ADA_CHROMA_BIN"); bin != "" {
		return bin
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", ".cache", "chroma", "node_modules", ".bin", "chroma")
}

// StartChroma starts a Chroma server on a free loopback port, waits for
// its heartbeat, stops it when the test ends and returns its URL. Without
// the launcher the test fails under CI=true (make test installs it) and
// is skipped otherwise, saying so.
func StartChroma(tb testing.TB) string {
	tb.Helper()
	bin := ChromaBin()
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("Chroma: no launcher at %s (make chroma installs it; CI needs it)", bin)
		}
		tb.Skipf("Chroma: no launcher at %s: run `make chroma` to test the Chroma backend", bin)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	logs := &lockedBuffer{}
	cmd := exec.Command(bin, "run", "--path", filepath.Join(tb.TempDir(), "chroma"), "--host", "127.0.0.1", "--port", strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		tb.Fatalf("Chroma: %s does not start: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tb.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			tb.Fatalf("Chroma exited at start: %v\n%s", err, logs.String())
		default:
		}
		if resp, err := http.Get(url + "/api/v2/heartbeat"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("Chroma did not answer its heartbeat within 60 s\n%s", logs.String())
		}
		// Polling a process we do not control: it has no event to wait on.
		time.Sleep(100 * time.Millisecond)
	}
}

// lockedBuffer collects a process's output from two pipes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
