package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// mcpStdio is `ada mcp` on stdio, spoken to line by line.
type mcpStdio struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  *bufio.Scanner
	stderr *strings.Builder
}

// startMCPStdio starts `ada mcp` on a data directory of its own, with env
// added to the environment, and initializes the session.
func startMCPStdio(t *testing.T, env ...string) *mcpStdio {
	return startMCPStdioArgs(t, nil, env...)
}

// startMCPStdioArgs is startMCPStdio with flags for ada mcp.
func startMCPStdioArgs(t *testing.T, args []string, env ...string) *mcpStdio {
	cmd := exec.Command(buildAda(t), append([]string{"mcp"}, args...)...)
	cmd.Env = append(append(os.Environ(), "DATA_DIR="+t.TempDir(), "ADA_ENV_FILE=/dev/null"), env...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	m := &mcpStdio{t: t, cmd: cmd, stdin: stdin, lines: bufio.NewScanner(stdout), stderr: &strings.Builder{}}
	cmd.Stderr = m.stderr
	m.lines.Buffer(nil, 1<<20)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	m.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

// send writes msg and returns the answer line of a request ("" for a
// notification).
func (m *mcpStdio) send(msg string) string {
	m.t.Helper()
	if _, err := io.WriteString(m.stdin, msg+"\n"); err != nil {
		m.t.Fatal(err)
	}
	if !strings.Contains(msg, `"id"`) {
		return ""
	}
	if !m.lines.Scan() {
		m.t.Fatalf("no answer to %s; stderr:\n%s", msg, m.stderr.String())
	}
	return m.lines.Text()
}

// close closes stdin and waits for the process to end.
func (m *mcpStdio) close() error {
	m.stdin.Close()
	return m.cmd.Wait()
}
