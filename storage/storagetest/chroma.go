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

// Chroma is a Chroma server a test runs.
type Chroma struct {
	URL  string
	tb   testing.TB
	bin  string
	dir  string
	port int
	logs *lockedBuffer
	cmd  *exec.Cmd
	exit chan error
}

// StartChroma starts a Chroma server on a free loopback port, waits for
// its heartbeat, stops it when the test ends and returns it. Without the
// launcher the test fails under CI=true (make test installs it) and is
// skipped otherwise, saying so.
func StartChroma(tb testing.TB) *Chroma {
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
	c := &Chroma{URL: fmt.Sprintf("http://127.0.0.1:%d", port), tb: tb, bin: bin, dir: filepath.Join(tb.TempDir(), "chroma"),
		port: port, logs: &lockedBuffer{}}
	tb.Cleanup(c.Stop)
	c.Start()
	return c
}

// Start starts the server (again, on the same port and data), and waits
// for its heartbeat.
func (c *Chroma) Start() {
	c.tb.Helper()
	c.cmd = exec.Command(c.bin, "run", "--path", c.dir, "--host", "127.0.0.1", "--port", strconv.Itoa(c.port))
	c.cmd.Stdout, c.cmd.Stderr = c.logs, c.logs
	if err := c.cmd.Start(); err != nil {
		c.tb.Fatalf("Chroma: %s does not start: %v", c.bin, err)
	}
	exited := make(chan error, 1)
	go func(cmd *exec.Cmd) { exited <- cmd.Wait() }(c.cmd)
	c.exit = exited
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-exited:
			c.tb.Fatalf("Chroma exited at start: %v\n%s", err, c.logs.String())
		default:
		}
		if resp, err := http.Get(c.URL + "/api/v2/heartbeat"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			c.tb.Fatalf("Chroma did not answer its heartbeat within 60 s\n%s", c.logs.String())
		}
		// Polling a process we do not control: it has no event to wait on.
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop stops the server and waits for it to exit.
func (c *Chroma) Stop() {
	if c.cmd == nil {
		return
	}
	c.cmd.Process.Kill()
	<-c.exit
	c.cmd = nil
}

// PID is the running server's process id (0 when stopped), for a bench
// that reads its memory.
func (c *Chroma) PID() int {
	if c.cmd == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// Dir is the server's data directory, for a bench that measures its disk.
func (c *Chroma) Dir() string { return c.dir }

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
