package config

import (
	"bytes"
	"fmt"
	"strings"
)

// ExampleFile is the name of the generated example, at the repository root.
const ExampleFile = ".env.example"

// Example renders .env.example from the settings table: every setting under
// its group heading, with its default value and a one-line comment above it.
// config's tests fail when the committed file differs; regenerate it with
// `go test ./config -update`.
func Example() []byte {
	var b bytes.Buffer
	b.WriteString(`# Ada settings. Generated from config/settings.go by "go test ./config -update": do not edit by hand.
# Copy to .env and change what you need. A missing or empty value means the default shown here.
# The environment wins over the file, even a variable set to empty. ADA_ENV_FILE names another file than ./.env (it must exist).
# Only NAME=value lines (no "export", no "NAME: value"); an unknown name is logged as a warning.
# Values of [secret] settings are never logged, and never shown by /v1/healthz or /v1/info.
`)
	group := ""
	for _, s := range table(new(Config)) {
		if s.group != group {
			group = s.group
			fmt.Fprintf(&b, "\n# ==== %s ====\n", group)
		}
		fmt.Fprintf(&b, "\n# %s%s\n%s=%s\n", s.doc, note(s), s.name, quote(s.def))
	}
	return b.Bytes()
}

// note is the bracketed rule after a doc line, e.g. " [1..20]" or " [secret]".
func note(s setting) string {
	switch {
	case s.secret:
		return " [secret]"
	case s.val.rule() != "":
		return " [" + s.val.rule() + "]"
	}
	return ""
}

// quote double-quotes a value that dotenv parsers could misread.
func quote(v string) string {
	if strings.ContainsAny(v, " #\"'\\$`") {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`).Replace(v) + `"`
	}
	return v
}
