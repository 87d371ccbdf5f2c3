package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/joho/godotenv"
)

// TestEnvStatementsNameTheBadLine: the strict scan refuses every file
// godotenv would, naming the line (and the setting, when the line is one)
// without its text; godotenv's own message would quote the value.
func TestEnvStatementsNameTheBadLine(t *testing.T) {
	const secret = "hunter2"
	cases := []struct {
		name, src string
		want      string
	}{
		{"unclosed quote", "A=1\nMATRIX_PASSWORD=\"" + secret + "\nB=2\n", "line 2, MATRIX_PASSWORD: the quoted value has no closing quote"},
		{"after a value over two lines", "# c\nA=\"one\ntwo\"\n\nB='" + secret + "\n", "line 5, B: the quoted value has no closing quote"},
		{"an escaped quote does not close", "A=\"" + secret + "\\\"\nB=2\n", "line 1, A: the quoted value"},
		{"nor in single quotes", "A='" + secret + "\\'\n", "line 1, A: the quoted value"},
		{"yaml style", "A: " + secret + "\n", "line 1 is not a NAME=value setting (write NAME=value, not NAME: value"},
		{"export", "A=1\nexport B=" + secret + "\n", "line 2 is not a NAME=value setting (write NAME=value without export"},
		{"a pasted secret", "A=1\n" + secret + " !!\n", "line 2 is not a NAME=value setting"},
		{"a bad name", "A=1\nMY-KEY=" + secret + "\n", "line 2 is not a NAME=value setting"},
	}
	for _, tc := range cases {
		_, _, err := envStatements("f", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), secret) {
			t.Errorf("%s: err = %v; want %q, without the value", tc.name, err, tc.want)
			continue
		}
		if _, gerr := godotenv.Unmarshal(tc.src); gerr == nil && strings.Contains(tc.want, "quote") {
			t.Errorf("%s: godotenv reads it; the scan must not refuse more than it", tc.name)
		}
	}
	_, stmts, err := envStatements("f", []byte("A=\"one\n\\\"two\"\nC=3\n"))
	want := []envStatement{{"A", 0, 1}, {"C", 2, 2}}
	if err != nil || !slices.Equal(stmts, want) {
		t.Errorf("statements = %v, err = %v; want %v", stmts, err, want)
	}
}

// TestEnvFileGodotenvRefusesNamesTheStatement: a file the strict scan
// passes but godotenv does not (what follows a closed quote) is refused
// with the statement's line and name, never its value.
func TestEnvFileGodotenvRefusesNamesTheStatement(t *testing.T) {
	const secret = "hunter2"
	file := filepath.Join(t.TempDir(), "env")
	if err := os.WriteFile(file, []byte("A=1\nB=\"two\nlines\"\nPASSWORD=\""+secret+"\" -y=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := withEnvFile(mapEnv(map[string]string{"ADA_ENV_FILE": file}))
	if err == nil || !strings.Contains(err.Error(), "line 4, PASSWORD: cannot be parsed") || strings.Contains(err.Error(), secret) {
		t.Errorf("err = %v; want line 4 and PASSWORD named, without the value", err)
	}
}
