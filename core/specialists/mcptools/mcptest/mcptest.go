// Package mcptest finds the pinned reference "everything" MCP server
// (tools/mcpeverything, installed by make deps) for tests across the repo.
// It is imported only by tests.
package mcptest

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Everything returns node and the everything server's script, which runs
// it as `node <script> stdio` or `node <script> streamableHttp`. Without
// them the test is skipped with the reason, except in CI (CI=true), where
// that is a failure.
func Everything(t testing.TB) (node, script string) {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: tests against the real MCP server must run in CI (make deps installs it)", why)
		}
		t.Skipf("%s: skipping a test against the real MCP server (make deps installs it)", why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	_, here, _, _ := runtime.Caller(0) // core/specialists/mcptools/mcptest/mcptest.go
	root := filepath.Join(filepath.Dir(here), "..", "..", "..", "..")
	script = filepath.Join(root, "tools", "mcpeverything", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		missing("the everything MCP server is not installed (make deps runs npm ci in tools/mcpeverything)")
	}
	return node, script
}

// EverythingHTTP runs the everything server over streamable HTTP on a
// unix socket (its PORT is handed to listen, so no port is guessed) until
// the test ends, and returns the socket once the server listens.
func EverythingHTTP(t testing.TB) (sock string) {
	t.Helper()
	sock = filepath.Join(t.TempDir(), "everything.sock")
	EverythingHTTPAt(t, sock)
	return sock
}

// EverythingHTTPAt runs the server on sock until the test ends or stop is
// called (which kills it and waits).
func EverythingHTTPAt(t testing.TB, sock string) (stop func()) {
	t.Helper()
	node, script := Everything(t)
	os.Remove(sock) // a killed server leaves its socket behind
	cmd := exec.Command(node, script, "streamableHttp")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "PORT=" + sock}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() { once.Do(func() { cmd.Process.Kill(); cmd.Wait() }) }
	t.Cleanup(stop)
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		ready := listening
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening") && ready != nil {
				close(ready)
				ready = nil
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(30 * time.Second):
		t.Fatal("the everything server did not listen within 30 s")
	}
	return stop
}

// UnixClient is an HTTP client whose every connection goes to sock.
func UnixClient(sock string) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
}
