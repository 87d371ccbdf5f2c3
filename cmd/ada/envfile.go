package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/joho/godotenv"
)

// withEnvFile layers the env file (ADA_ENV_FILE, else .env; a missing file is
// no error) under the real environment. A variable that is set wins even when
// it is empty, so that `API_KEY= ada serve` turns off a key the file sets.
func withEnvFile(lookup func(string) (string, bool)) (func(string) string, error) {
	file, ok := lookup("ADA_ENV_FILE")
	if !ok || file == "" {
		file = ".env"
	}
	env := func(k string) string {
		v, _ := lookup(k)
		return v
	}
	src, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return env, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s (ADA_ENV_FILE): %w", file, err)
	}
	vals, err := godotenv.UnmarshalBytes(src)
	if err != nil {
		return nil, envFileError(file, src, err)
	}
	return func(k string) string {
		if v, ok := lookup(k); ok {
			return v
		}
		return vals[k]
	}, nil
}

// envFileError names the file, the line and the setting godotenv could not
// parse. godotenv's own message is never shown: it quotes the value, and the
// value is often a password.
func envFileError(file string, src []byte, err error) error {
	reason := "cannot be parsed"
	if strings.HasPrefix(err.Error(), "unterminated quoted value") {
		reason = "the quoted value has no closing quote"
	}
	n, name := badEnvLine(src)
	if name == "" {
		return fmt.Errorf("read %s: line %d is not a NAME=value setting (the line is not shown)", file, n)
	}
	return fmt.Errorf("read %s: line %d, %s: %s (the value is not shown)", file, n, name, reason)
}

// badEnvLine finds the statement that does not parse: the first one after
// the longest run of leading lines that does. Parsing prefixes, rather than
// single lines, keeps quoted values that span lines working.
func badEnvLine(src []byte) (line int, name string) {
	lines := strings.SplitAfter(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n")
	good := 0
	for k := 1; k <= len(lines); k++ {
		if _, err := godotenv.Unmarshal(strings.Join(lines[:k], "")); err == nil {
			good = k
		}
	}
	for i := good; i < len(lines); i++ {
		if t := strings.TrimSpace(lines[i]); t != "" && !strings.HasPrefix(t, "#") {
			return i + 1, settingName(t)
		}
	}
	return len(lines), ""
}

var envName = regexp.MustCompile(`^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*[=:]`)

// settingName is the name a line sets, or "" when it does not start like a
// setting (then the line may be a pasted secret, and is not named at all).
func settingName(line string) string {
	if m := envName.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}
