package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/ada-chat/ada/config"
	"github.com/joho/godotenv"
)

// envFile is what the settings file gave, for the start log: which file,
// whether it was there at all, and the names it set, in file order.
type envFile struct {
	path  string
	found bool
	names []string
	lines map[string]int
}

// withEnvFile layers the env file (ADA_ENV_FILE, else .env) under the real
// environment. A variable that is set wins even when it is empty, so that
// `API_KEY= ada serve` turns off a key the file sets. Only the default .env may
// be missing: a file named on purpose that is not there would start Ada on
// defaults with every secret gone, so it is an error.
func withEnvFile(lookup func(string) (string, bool)) (func(string) string, envFile, error) {
	path, named := lookup("ADA_ENV_FILE")
	named = named && path != ""
	if !named {
		path = ".env"
	}
	info := envFile{path: path}
	env := func(k string) string {
		v, _ := lookup(k)
		return v
	}
	src, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !named {
		return env, info, nil
	}
	if err != nil {
		return nil, info, fmt.Errorf("read %s (ADA_ENV_FILE): %w", path, err)
	}
	info.found = true
	lines, stmts, err := envStatements(path, src)
	if err != nil {
		return nil, info, err
	}
	info.lines = make(map[string]int, len(stmts))
	for _, st := range stmts {
		info.lines[st.name] = st.first + 1
	}
	vals, err := godotenv.UnmarshalBytes(src)
	if err != nil {
		return nil, info, unparsedStatement(path, lines, stmts)
	}
	for name := range vals {
		info.names = append(info.names, name)
	}
	slices.SortFunc(info.names, func(a, b string) int { return info.lines[a] - info.lines[b] })
	return func(k string) string {
		if v, ok := lookup(k); ok {
			return v
		}
		return vals[k]
	}, info, nil
}

// log says which file the settings came from and how many it gave, and warns
// about each name Ada does not know, with the setting it was probably meant
// to be: a misspelt API_KY would otherwise leave the API open without a word.
func (f envFile) log(log *slog.Logger) {
	if !f.found {
		log.Info("no settings file; settings come from the environment only", "file", f.path)
		return
	}
	log.Info("settings file read", "file", f.path, "settings", len(f.names))
	for _, name := range f.names {
		if config.Known(name) {
			continue
		}
		attrs := []any{"file", f.path, "line", f.lines[name], "name", name}
		if c := config.Closest(name); c != "" {
			attrs = append(attrs, "closest", c)
		}
		log.Warn("unknown setting in the settings file, ignored", attrs...)
	}
}

var statement = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)

// envStatements accepts only NAME=value lines (and blank lines, # comments and
// the further lines of a quoted value). godotenv alone also takes `NAME: value`,
// `NAME value` and `export NAME=value`; those forms are refused so that one file
// means the same to Ada, to a shell and to systemd's EnvironmentFile (which
// knows neither ':' nor 'export'). A quoted value with no closing quote is
// refused here too, so that godotenv, whose message quotes the value, has
// nothing left to refuse. The error names the line, never its text: the text
// may be a secret. It returns the file's lines and its statements.
func envStatements(path string, src []byte) ([]string, []envStatement, error) {
	lines := strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	var stmts []envStatement
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		m := statement.FindStringSubmatch(lines[i])
		if m == nil {
			return nil, nil, fmt.Errorf("read %s: line %d is not a NAME=value setting (%s; the line is not shown)",
				path, i+1, lenientForm(t))
		}
		end, ok := endOfValue(lines, i, strings.TrimSpace(m[2]))
		if !ok {
			return nil, nil, fmt.Errorf("read %s: line %d, %s: the quoted value has no closing quote (the value is not shown)",
				path, i+1, m[1])
		}
		stmts = append(stmts, envStatement{name: m[1], first: i, last: end})
		i = end
	}
	return lines, stmts, nil
}

// envStatement is one NAME=value setting: its name and its first and last
// lines (0-based), more than one for a quoted value over several.
type envStatement struct {
	name        string
	first, last int
}

// unparsedStatement names the first statement godotenv does not read on its
// own, such as `A="x" -y`, whose quoted value is followed by what is no
// setting: each statement is parsed once. godotenv's own message is never
// shown: it quotes the value, and the value is often a password.
func unparsedStatement(path string, lines []string, stmts []envStatement) error {
	for _, st := range stmts {
		if _, err := godotenv.Unmarshal(strings.Join(lines[st.first:st.last+1], "\n")); err != nil {
			return fmt.Errorf("read %s: line %d, %s: cannot be parsed (the value is not shown)", path, st.first+1, st.name)
		}
	}
	return fmt.Errorf("read %s: cannot be parsed (the file is not shown)", path)
}

// endOfValue is the last line of a value that starts on line i: a quoted
// value may go on over further lines until its closing quote. It is false when
// the quote is never closed.
func endOfValue(lines []string, i int, value string) (int, bool) {
	if value == "" || (value[0] != '"' && value[0] != '\'') {
		return i, true
	}
	q, rest := value[0], value
	for !closes(rest, q) {
		if i+1 >= len(lines) {
			return i, false
		}
		i++
		rest = "\n" + lines[i]
	}
	return i, true
}

// closes reports whether s, after its first byte, holds the quote q that ends
// a value. As godotenv reads it, a quote right after a backslash never ends
// one, in either kind of quotes.
func closes(s string, q byte) bool {
	for j := 1; j < len(s); j++ {
		if s[j] == q && s[j-1] != '\\' {
			return true
		}
	}
	return false
}

var (
	colonForm         = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\s*:`)
	spaceBeforeEquals = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\s+=`)
	spaceForm         = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*\s`)
)

// lenientForm names the form a refused line looks like, without its text.
func lenientForm(line string) string {
	switch {
	case strings.HasPrefix(line, "export "):
		return "write NAME=value without export"
	case colonForm.MatchString(line):
		return "write NAME=value, not NAME: value"
	case spaceBeforeEquals.MatchString(line):
		return "no space before ="
	case spaceForm.MatchString(line):
		return "write NAME=value, not NAME value"
	}
	return "expected NAME=value"
}
