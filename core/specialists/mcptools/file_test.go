package mcptools

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestParseReadsBothKinds(t *testing.T) {
	servers, err := Parse([]byte(`{"mcpServers": {
		"wiki": {"url": "https://wiki.example.org/mcp?key=q-secret", "headers": {"Authorization": "Bearer h-secret"}},
		"files": {"command": "npx", "args": ["-y", "server-files", "/srv"], "env": {"TOKEN": "e-secret"}},
		"old": {"command": "gone", "disabled": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(servers) != 2 || servers[0].Name != "files" || servers[1].Name != "wiki" {
		t.Fatalf("servers %+v", servers)
	}
	f, w := servers[0], servers[1]
	if !f.Stdio() || f.Command != "npx" || len(f.Args) != 3 || f.Env["TOKEN"] != "e-secret" {
		t.Errorf("stdio server %+v", f)
	}
	if w.Stdio() || w.Headers["Authorization"] != "Bearer h-secret" {
		t.Errorf("http server %+v", w)
	}
	// Printing or logging a server never shows env, headers or the query.
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("x", "a", f, "b", w)
	for _, shown := range []string{fmt.Sprint(f), fmt.Sprintf("%v %+v %#v %#v", w, w, w, []Server{f}), logged.String()} {
		for _, secret := range []string{"e-secret", "h-secret", "q-secret"} {
			if strings.Contains(shown, secret) {
				t.Errorf("%q shows %s", shown, secret)
			}
		}
	}
}

func TestParseNamesServerAndField(t *testing.T) {
	tests := []struct{ file, want string }{
		{`[]`, "not a JSON object"},
		{`{"servers": {}}`, `no "mcpServers" object`},
		{`{"mcpServers": []}`, `"mcpServers" must be an object`},
		{`{"mcpServers": {"bad name": {"command": "x"}}}`, `server "bad name": a server name`},
		{`{"mcpServers": {"a": "x"}}`, `server "a": must be an object`},
		{`{"mcpServers": {"a": {}}}`, `server "a": needs "command"`},
		{`{"mcpServers": {"a": {"command": "x", "url": "http://h"}}}`, `server "a": url: a server has either`},
		{`{"mcpServers": {"a": {"command": "x", "headres": {}}}}`, `server "a": headres: unknown field`},
		{`{"mcpServers": {"a": {"command": 3}}}`, `server "a": command: must be a string`},
		{`{"mcpServers": {"a": {"command": "x", "args": "-v"}}}`, `server "a": args: must be an array of strings`},
		{`{"mcpServers": {"a": {"command": "x", "env": {"A": 1}}}}`, `server "a": env: must be an object of strings`},
		{`{"mcpServers": {"a": {"command": "x", "env": {"A=B": "v"}}}}`, `server "a": env: "A=B" is not an environment variable name`},
		{`{"mcpServers": {"a": {"command": "x", "headers": {"A": "v"}}}}`, `server "a": headers: only for a "url" server`},
		{`{"mcpServers": {"a": {"url": "ftp://h/x"}}}`, `server "a": url: must be an http or https address`},
		{`{"mcpServers": {"a": {"url": "https://u:p@h/x"}}}`, `server "a": url: must not hold a user or password`},
		{`{"mcpServers": {"a": {"url": "https://h/x", "env": {}}}}`, `server "a": env: only for a "command" server`},
		{`{"mcpServers": {"a": {"url": "https://h/x", "type": "sse"}}}`, `server "a": type: the old SSE transport is not supported`},
		{`{"mcpServers": {"a": {"url": "https://h/x", "headers": {"X": "line\nbreak-secret"}}}}`, `server "a": headers.X: must be one line (value not shown)`},
		{`{"mcpServers": {"a": {"command": "x", "type": "http"}}}`, `server "a": type: must be "stdio"`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.file))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.file, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error shows a secret: %v", tt.file, err)
		}
	}
	// Every bad server is named at once.
	_, err := Parse([]byte(`{"mcpServers": {"a": {}, "b": {"url": "x"}}}`))
	if err == nil || !strings.Contains(err.Error(), `server "a"`) || !strings.Contains(err.Error(), `server "b"`) {
		t.Errorf("error %v, want both servers", err)
	}
}

func TestLoadFileNamesTheFile(t *testing.T) {
	if s, err := LoadFile(""); s != nil || err != nil {
		t.Fatalf("empty path: %v %v", s, err)
	}
	_, err := LoadFile("/nonexistent/mcp.json")
	if err == nil || !strings.Contains(err.Error(), "MCP_SERVERS_FILE") {
		t.Fatalf("error %v", err)
	}
}
