package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The secret is made once, readable by Ada's user alone, and read back
// alike; a file Ada did not make is refused with what to do.
func TestConversationSecret(t *testing.T) {
	dir := t.TempDir()
	if _, err := conversationKey(dir); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, secretFile)
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 || len(strings.TrimSpace(string(first))) != 2*secretBytes {
		t.Errorf("%s: mode %v, %q", path, info.Mode().Perm(), first)
	}
	if _, err := conversationKey(dir); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); string(again) != string(first) {
		t.Error("the secret changed on the second start")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("DATA_DIR holds %v, want the secret alone (no temporary file left)", entries)
	}
	if err := os.WriteFile(path, []byte("hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := conversationKey(dir); err == nil || !strings.Contains(err.Error(), "delete it to make a new one") {
		t.Errorf("a malformed secret: %v", err)
	}
}

// ada mcp --entity names an end user, never a Matrix id.
func TestMCPEntityFlagIsNotAMatrixID(t *testing.T) {
	err := run(context.Background(), runEnv{args: []string{"mcp", "--entity", "!room:server"},
		lookupEnv: mapEnv(testEnv(t, nil)), stdout: io.Discard, stderr: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "--entity") || !strings.Contains(err.Error(), "Matrix") {
		t.Errorf("ada mcp --entity !room:server: %v, want a refusal naming the flag", err)
	}
}
