package dendritetest

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// serverName is the Matrix server name; user IDs look like @alice:localhost.
const serverName = "localhost"

// writeConfig creates the signing key and dendrite.yaml in dir and returns
// the config path and the registration shared secret.
func writeConfig(t testing.TB, bins binaries, dir string) (configPath, sharedSecret string) {
	t.Helper()

	// Only the Ed25519 signing key is needed: dendrite serves HTTPS only when
	// given -tls-cert/-tls-key, and the tests talk plain HTTP on loopback.
	keyPath := filepath.Join(dir, "matrix_key.pem")
	run(t, dir, bins.generateKeys, "-private-key", keyPath)

	// -ci gives test-friendly defaults (bcrypt cost 4, in-memory JetStream and
	// search index, no key perspectives, rate limiting off) and -dir puts every
	// SQLite file and the media store in dir. The edits below pin everything
	// the harness depends on rather than trusting those defaults.
	raw := run(t, dir, bins.generateConfig, "-ci", "-dir", dir, "-server", serverName)
	var cfg map[string]any
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf("dendritetest: parse generated config: %v", err)
	}

	sharedSecret = rand.Text()
	for _, e := range configEdits(dir, keyPath, sharedSecret) {
		if err := setPath(cfg, e.path, e.value); err != nil {
			t.Fatalf("dendritetest: edit config: %v (has the dendrite config schema changed?)", err)
		}
	}

	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatalf("dendritetest: marshal config: %v", err)
	}
	configPath = filepath.Join(dir, "dendrite.yaml")
	if err := os.WriteFile(configPath, out, 0o600); err != nil {
		t.Fatalf("dendritetest: %v", err)
	}
	return configPath, sharedSecret
}

type configEdit struct {
	path  string // dot-separated; every segment must already exist
	value any
}

func configEdits(dir, keyPath, sharedSecret string) []configEdit {
	sqlite := func(name string) string {
		return "file:" + filepath.Join(dir, "dendrite_"+name+".db")
	}
	return []configEdit{
		{"global.server_name", serverName},
		// Relative paths are resolved against dendrite's cwd, so be explicit.
		{"global.private_key", keyPath},

		// No network: no federation (also unmounts the federation API), no
		// identity servers, no phone-home stats, no key notaries, no
		// advertised delegation.
		{"global.disable_federation", true},
		{"global.trusted_third_party_id_servers", []string{}},
		{"global.report_stats.enabled", false},
		{"global.well_known_server_name", ""},
		{"global.well_known_client_name", ""},
		{"federation_api.key_perspectives", []any{}},

		// Users are created only through the shared-secret admin API.
		// registration_disabled must be true anyway: dendrite refuses to start
		// with open registration unless -really-enable-open-registration (or
		// a captcha) is set, and -ci only sets that flag in memory.
		{"client_api.registration_disabled", true},
		{"client_api.registration_shared_secret", sharedSecret},
		// Tests register users and send bursts of messages.
		{"client_api.rate_limiting.enabled", false},

		// All state in the temp dir; JetStream and search stay in memory.
		{"global.jetstream.in_memory", true},
		{"global.jetstream.storage_path", dir},
		{"sync_api.search.in_memory", true},
		{"sync_api.search.index_path", filepath.Join(dir, "searchindex")},
		{"media_api.base_path", filepath.Join(dir, "media")},
		{"federation_api.database.connection_string", sqlite("federationapi")},
		{"key_server.database.connection_string", sqlite("keyserver")},
		{"media_api.database.connection_string", sqlite("mediaapi")},
		{"mscs.database.connection_string", sqlite("mscs")},
		{"relay_api.database.connection_string", sqlite("relayapi")},
		{"room_server.database.connection_string", sqlite("roomserver")},
		{"sync_api.database.connection_string", sqlite("syncapi")},
		{"user_api.account_database.connection_string", sqlite("userapi")},

		// -ci logs at trace level; info to stdout (captured in the log file)
		// is what dendrite falls back to with no hooks, and keeps the log
		// readable when printed after a failure.
		{"logging", []any{}},
	}
}

// setPath sets a value in a nested YAML map. It refuses to create keys so a
// renamed option fails loudly instead of being silently ignored by dendrite.
func setPath(cfg map[string]any, path string, value any) error {
	keys := strings.Split(path, ".")
	m := cfg
	for i, k := range keys {
		v, ok := m[k]
		if !ok {
			return fmt.Errorf("key %q not found in generated config", strings.Join(keys[:i+1], "."))
		}
		if i == len(keys)-1 {
			m[k] = value
			return nil
		}
		if m, ok = v.(map[string]any); !ok {
			return fmt.Errorf("key %q is not a mapping", strings.Join(keys[:i+1], "."))
		}
	}
	return nil
}

// run executes a helper binary and returns its stdout.
func run(t testing.TB, dir, bin string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dendritetest: %s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, stderr.String())
	}
	return out
}
