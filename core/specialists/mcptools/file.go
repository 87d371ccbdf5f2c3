package mcptools

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/ada-chat/ada/core/internal/remote"
)

// Server is one entry of the servers file: a stdio server (Command, Args,
// Env) or a streamable-HTTP server (URL, Headers). Env and Headers hold
// secrets: String and LogValue never show their values.
type Server struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}

// Stdio reports whether Ada starts the server itself.
func (s Server) Stdio() bool { return s.Command != "" }

// String names the server and its transport, never its env or headers.
func (s Server) String() string {
	if s.Stdio() {
		return fmt.Sprintf("%s (stdio: %s)", s.Name, s.Command)
	}
	return fmt.Sprintf("%s (http: %s)", s.Name, remote.WithoutQuery(s.URL))
}

// GoString keeps %#v as safe as %v.
func (s Server) GoString() string { return "mcptools.Server{" + s.String() + "}" }

// LogValue keeps env and headers out of logs: only their names are shown.
func (s Server) LogValue() slog.Value {
	return slog.StringValue(s.String())
}

// nameRE is what a server name may be: it prefixes its tools' specialist
// names (server.tool), which the marker syntax limits to these bytes.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// envNameRE is a portable environment variable name.
var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// headerNameRE is an HTTP header field name (RFC 9110 token).
var headerNameRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// LoadFile reads and checks the servers file; an empty path means no
// servers. Errors name the file, the server and the field.
func LoadFile(path string) ([]Server, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("MCP_SERVERS_FILE: %w", err)
	}
	servers, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("MCP_SERVERS_FILE %s: %w", path, err)
	}
	return servers, nil
}

// Parse checks a servers file's content; servers come back sorted by
// name. Entries with "disabled": true are left out. Every problem is
// reported, joined, each naming the server and the field; a value from
// env or headers is never quoted.
func Parse(data []byte) ([]Server, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	raw, ok := top["mcpServers"]
	if !ok {
		return nil, errors.New(`no "mcpServers" object: the file must look like {"mcpServers": {"<name>": {"command": "..."}}}`)
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil || entries == nil {
		return nil, errors.New(`"mcpServers" must be an object of servers by name`)
	}
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Server
	var errs []error
	for _, n := range names {
		s, skip, err := parseServer(n, entries[n])
		switch {
		case err != nil:
			errs = append(errs, err)
		case !skip:
			out = append(out, s)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// knownFields are the fields of an entry; others are refused, so that a
// misspelt "headres" does not silently drop a secret.
var knownFields = map[string]bool{"command": true, "args": true, "env": true, "url": true, "headers": true,
	"type": true, "disabled": true}

func parseServer(name string, raw json.RawMessage) (Server, bool, error) {
	fail := func(field, format string, args ...any) (Server, bool, error) {
		where := fmt.Sprintf("server %q", name)
		if field != "" {
			where += ": " + field
		}
		return Server{}, false, fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...))
	}
	if !nameRE.MatchString(name) {
		return fail("", "a server name may only hold letters, digits, '_' and '-' (at most 64)")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return fail("", "must be an object with \"command\" or \"url\"")
	}
	for f := range fields {
		if !knownFields[f] {
			return fail(f, "unknown field (known: command, args, env, url, headers, type, disabled)")
		}
	}
	s := Server{Name: name}
	var disabled bool
	var kind string
	for _, f := range []struct {
		name string
		dst  any
		want string
	}{
		{"command", &s.Command, "a string"}, {"args", &s.Args, "an array of strings"},
		{"env", &s.Env, "an object of strings"}, {"url", &s.URL, "a string"},
		{"headers", &s.Headers, "an object of strings"}, {"type", &kind, "a string"},
		{"disabled", &disabled, "true or false"},
	} {
		if v, ok := fields[f.name]; ok {
			if err := json.Unmarshal(v, f.dst); err != nil {
				return fail(f.name, "must be %s", f.want)
			}
		}
	}
	if disabled {
		return Server{}, true, nil
	}
	switch {
	case s.Command == "" && s.URL == "":
		return fail("", "needs \"command\" (a stdio server) or \"url\" (a streamable-HTTP server)")
	case s.Command != "" && s.URL != "":
		return fail("url", "a server has either \"command\" or \"url\", not both")
	case strings.TrimSpace(s.Command) != s.Command && s.Command != "":
		return fail("command", "must not start or end with spaces")
	}
	if s.Stdio() {
		if _, ok := fields["headers"]; ok {
			return fail("headers", "only for a \"url\" server; a stdio server gets \"env\"")
		}
		switch kind {
		case "", "stdio":
		default:
			return fail("type", "must be \"stdio\" for a \"command\" server, got %q", kind)
		}
		for k := range s.Env {
			if !envNameRE.MatchString(k) {
				return fail("env", "%q is not an environment variable name", k)
			}
			if strings.ContainsRune(s.Env[k], 0) {
				return fail("env."+k, "must not contain a NUL byte (value not shown)")
			}
		}
		return s, false, nil
	}
	for _, f := range []string{"args", "env"} {
		if _, ok := fields[f]; ok {
			return fail(f, "only for a \"command\" server; a \"url\" server gets \"headers\"")
		}
	}
	switch kind {
	case "", "http", "streamable-http", "streamableHttp":
	case "sse":
		return fail("type", "the old SSE transport is not supported; use the server's streamable-HTTP address")
	default:
		return fail("type", "must be \"http\" for a \"url\" server, got %q", kind)
	}
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fail("url", "must be an http or https address such as https://wiki.example.org/mcp")
	}
	if u.User != nil {
		return fail("url", "must not hold a user or password; send credentials in \"headers\"")
	}
	for k, v := range s.Headers {
		if !headerNameRE.MatchString(k) {
			return fail("headers", "%q is not an HTTP header name", k)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			return fail("headers."+k, "must be one line (value not shown)")
		}
	}
	return s, false, nil
}
