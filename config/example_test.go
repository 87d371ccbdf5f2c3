package config

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/joho/godotenv"
)

var update = flag.Bool("update", false, "rewrite ../.env.example from the settings table")

var examplePath = filepath.Join("..", ExampleFile)

// TestExampleInSync fails when .env.example differs from the table.
// Regenerate with: go test ./config -run TestExampleInSync -update
func TestExampleInSync(t *testing.T) {
	want := Example()
	if *update {
		if err := os.WriteFile(examplePath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatalf("%v (generate it with: go test ./config -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date with config/settings.go; regenerate it with: go test ./config -update\n%s",
			ExampleFile, firstDiff(string(got), string(want)))
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n  file:  " + gl + "\n  table: " + wl
		}
	}
	return ""
}

// TestExampleParses reads the committed file with godotenv, as cmd does:
// it names every setting, and loading it gives the defaults.
func TestExampleParses(t *testing.T) {
	vars, err := godotenv.Read(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range table(new(Config)) {
		v, ok := vars[s.name]
		if !ok {
			t.Errorf("%s lacks %s", ExampleFile, s.name)
		} else if v != s.def {
			t.Errorf("%s: %s=%q, want the default %q", ExampleFile, s.name, v, s.def)
		}
	}
	if len(vars) != len(table(new(Config))) {
		t.Errorf("%s has %d settings, the table %d", ExampleFile, len(vars), len(table(new(Config))))
	}
	diffFields(t, mustLoad(t, vars), defaults())
}

// TestTable checks the table's own rules.
func TestTable(t *testing.T) {
	name := regexp.MustCompile(`^[A-Z][A-Z0-9_]*[A-Z0-9]$`)
	seen := map[string]bool{}
	groups := map[string]bool{}
	last := ""
	secrets := map[string]bool{}
	for _, s := range table(new(Config)) {
		secrets[s.name] = s.secret
		if !name.MatchString(s.name) || seen[s.name] {
			t.Errorf("bad or duplicate name %q", s.name)
		}
		seen[s.name] = true
		if s.doc == "" || strings.ContainsAny(s.doc, "\n\r") || !strings.HasSuffix(s.doc, ".") {
			t.Errorf("%s: doc must be one non-empty line ending in a period: %q", s.name, s.doc)
		}
		if s.secret && s.def != "" {
			t.Errorf("%s: a secret must not have a default", s.name)
		}
		if s.group != last {
			if groups[s.group] {
				t.Errorf("%s: group %q is split; keep a group's settings together", s.name, s.group)
			}
			groups[s.group], last = true, s.group
		}
	}
	for _, n := range []string{"MATRIX_ACCESS_TOKEN", "MATRIX_PASSWORD", "MATRIX_RECOVERY_KEY",
		"LLM_API_KEY", "EMBED_API_KEY", "API_KEY", "MUSICPROVIDER_TOKEN", "CHROMA_TOKEN"} {
		if !secrets[n] {
			t.Errorf("%s must be marked secret", n)
		}
	}
}
