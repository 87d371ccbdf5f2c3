package config

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// deployEnvPath is the env file operators start from on a server.
var deployEnvPath = filepath.Join("..", "deploy", "ada.env")

// TestDeployEnv: every name in deploy/ada.env, set or commented out, is a
// known setting; it sets no DATA_DIR (the systemd unit's would win over it
// and mislead); its settings load as they stand, so an operator who fills in
// only the blanks starts; each commented default is the table's default.
func TestDeployEnv(t *testing.T) {
	f, err := os.Open(deployEnvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	known := map[string]setting{}
	for _, s := range table(&Config{}) {
		known[s.name] = s
	}
	// An assignment: NAME=value, maybe commented out as "# NAME=value".
	assign := regexp.MustCompile(`^(# )?([A-Z][A-Z0-9_]*)=(.*)$`)
	set := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		m := assign.FindStringSubmatch(line)
		if m == nil {
			if line != "" && !strings.HasPrefix(line, "#") {
				t.Errorf("line %d is neither a setting nor a comment: %q", n, line)
			}
			continue
		}
		commented, name, val := m[1] != "", m[2], m[3]
		s, ok := known[name]
		switch {
		case !ok:
			t.Errorf("line %d: %s is not a setting", n, name)
		case name == "DATA_DIR" && !commented:
			t.Errorf("line %d sets DATA_DIR, which the systemd unit overrides", n)
		case commented && val != "" && s.def != "" && val != s.def && !strings.Contains(val, "example"):
			t.Errorf("line %d shows %s=%s, but its default is %q", n, name, val, s.def)
		case !commented:
			set[name] = val
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, must := range []string{"API_KEY", "PUBLIC_URL", "TRUSTED_PROXIES", "LLM_BACKEND", "LLM_MODEL"} {
		if _, ok := set[must]; !ok {
			t.Errorf("%s is not set in %s", must, deployEnvPath)
		}
	}
	if _, err := Load(func(k string) string { return set[k] }); err != nil {
		t.Errorf("%s as shipped does not load: %v", deployEnvPath, err)
	}
}
