// Package mcptest finds the pinned reference "everything" MCP server
// (tools/mcpeverything, installed by make deps) for tests across the repo.
// It is imported only by tests.
package mcptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
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
