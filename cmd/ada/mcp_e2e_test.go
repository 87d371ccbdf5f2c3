package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mcpClientDir holds the official MCP TypeScript SDK client script
// (make deps installs its pinned packages with npm ci).
var mcpClientDir = filepath.Join("..", "..", "tools", "mcpclient")

// requireMCPClient returns node's path, or skips the test with the reason
// locally; with CI=true a missing node or client is a failure.
func requireMCPClient(t *testing.T) string {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: the MCP acceptance test must run in CI (make deps installs it)", why)
		}
		t.Skipf("%s: skipping the MCP acceptance test (make deps installs it)", why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(mcpClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missing("the MCP client's packages are not installed (make deps runs npm ci in tools/mcpclient)")
	}
	return node
}

// The official MCP TypeScript SDK client against the real program: over
// streamable HTTP at /mcp with API_KEY it lists the tools, adds a memory,
// finds it with search_memory (with its explain), updates and deletes it; a
// wrong key is refused; then the same over stdio, with the built binary's
// `ada mcp` started by the client as a desktop app would.
func TestMCPClientAcceptance(t *testing.T) {
	node := requireMCPClient(t)
	bin := buildAda(t)
	const key = "mcp-acceptance-key"
	ada := startAda(t, "serve", testEnv(t, map[string]string{"API_KEY": key}))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs")
	cmd.Dir = mcpClientDir
	// The stdio server inherits this environment: its own data directory,
	// no developer .env.
	cmd.Env = append(os.Environ(), "ADA_MCP_URL="+ada.URL+"/mcp", "ADA_MCP_KEY="+key, "ADA_BIN="+bin,
		"DATA_DIR="+t.TempDir(), "ADA_ENV_FILE=/dev/null", "LOG_LEVEL=DEBUG")
	out, err := cmd.CombinedOutput()
	t.Logf("client output:\n%s", out)
	if err != nil {
		t.Fatalf("the MCP client failed: %v", err)
	}
	for _, step := range []string{"http: listed 6 tools", "http: found it", "http: deleted it", "http: a wrong key is refused (401)",
		"stdio: listed 6 tools", "stdio: found it", "stdio: deleted it"} {
		if !strings.Contains(string(out), step) {
			t.Errorf("the client did not report %q", step)
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(string(out)), "ok") {
		t.Error("the client did not end with ok")
	}
}

// ada mcp answers on stdout alone (its log goes to stderr), turns bad
// input into a tool error that says what is wrong, and exits 0 when the
// client closes stdin, as a desktop app does when it quits.
func TestMCPStdioAnswersAndEndsWhenStdinCloses(t *testing.T) {
	m := startMCPStdio(t, "LOG_LEVEL=DEBUG")
	got := m.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_memory","arguments":{"text":"hi","importance":9}}}`)
	if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "importance: must be 1..5, got 9") {
		t.Errorf("add_memory with importance 9: %s", got)
	}
	if err := m.close(); err != nil {
		t.Errorf("ada mcp exited with %v after stdin closed; stderr:\n%s", err, m.stderr.String())
	}
	if m.lines.Scan() {
		t.Errorf("stdout carries more than the answers: %q", m.lines.Text())
	}
}
