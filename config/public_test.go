package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"
)

// secretEnv sets every secret, and a password in every URL's userinfo, to
// values that contain "hunter2", which must then appear nowhere.
func secretEnv() map[string]string {
	m := merge(golden, nil)
	for _, s := range table(new(Config)) {
		switch {
		case s.secret:
			m[s.name] = "hunter2-secret-" + strings.ToLower(s.name) // API_KEY needs 16 characters
		case isURL(s):
			if v := m[s.name]; v != "" {
				m[s.name] = strings.Replace(v, "://", "://admin:hunter2@", 1)
			}
		}
	}
	return m
}

func isURL(s setting) bool { _, ok := s.val.(urlVal); return ok }

func TestPublicHasNoSecrets(t *testing.T) {
	c := mustLoad(t, secretEnv())
	if c.LLMBaseURL != "https://admin:hunter2@llm.example.org/v1" || c.APIKey != "hunter2-secret-api_key" {
		t.Fatalf("the secrets did not load: LLMBaseURL=%q", c.LLMBaseURL)
	}
	pub := c.Public()
	for _, s := range table(c) {
		if _, ok := pub[s.name]; ok == s.secret {
			t.Errorf("Public()[%s] present = %v, want %v", s.name, ok, !s.secret)
		}
	}
	if got, want := pub["LLM_BASE_URL"], "https://llm.example.org/v1"; got != want {
		t.Errorf("Public()[LLM_BASE_URL] = %v, want %v", got, want)
	}

	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "config", c)
	pubJSON, _ := json.Marshal(pub)
	structJSON, _ := json.Marshal(c)
	valueJSON, _ := json.Marshal(*c)
	for what, text := range map[string]string{
		"Public() as JSON": string(pubJSON),
		"json.Marshal":     string(structJSON),
		"%v":               fmt.Sprintf("%v", c),
		"%+v":              fmt.Sprintf("%+v", c),
		"%#v":              fmt.Sprintf("%#v", c),
		"%s":               fmt.Sprintf("%s", c),
		"json of a copy":   string(valueJSON),
		"%+v of a copy":    fmt.Sprintf("%+v", *c),
		"%#v of a copy":    fmt.Sprintf("%#v", *c),
		"slog":             logged.String(),
	} {
		if strings.Contains(text, "hunter2") {
			t.Errorf("%s shows a secret:\n%s", what, text)
		}
		if !strings.Contains(text, "llm.example.org") {
			t.Errorf("%s lacks LLM_BASE_URL's host:\n%s", what, text)
		}
	}
}

// TestErrorsHaveNoSecrets makes every secret and every URL invalid while
// carrying a credential, and checks no error line echoes one.
func TestErrorsHaveNoSecrets(t *testing.T) {
	m := map[string]string{}
	for _, s := range table(new(Config)) {
		switch {
		case s.secret:
			m[s.name] = "hunter2\x00 bad"
		case isURL(s):
			m[s.name] = "ftp://admin:hunter2@" + strings.ToLower(s.name)
		}
	}
	badURLs := []string{
		"ftp://admin:hunter2@host",
		"admin:hunter2@host/path",
		"http://admin:hunter2@host:bad",
		"http://admin:hun%zzter2@host",
		"https://admin:hunter2@",
		"//admin:hunter2@host",
	}
	for i, u := range badURLs {
		mm := map[string]string{"WEBSEARCH_URL": u}
		if _, err := Load(env(mm)); err == nil {
			t.Errorf("WEBSEARCH_URL=%s accepted", u)
		} else if strings.Contains(err.Error(), "hunter") {
			t.Errorf("case %d: error echoes a credential: %v", i, err)
		}
	}
	_, err := Load(env(m))
	if err == nil {
		t.Fatal("Load succeeded")
	}
	lines := strings.Split(err.Error(), "\n")
	for _, line := range lines {
		if strings.Contains(line, "hunter2") {
			t.Errorf("error echoes a secret: %s", line)
		}
	}
	// One error per secret and per URL: all of them were checked.
	var n int
	for _, s := range table(new(Config)) {
		if s.secret || isURL(s) {
			n++
		}
	}
	if len(lines) != n {
		t.Errorf("got %d error lines, want %d:\n%s", len(lines), n, err)
	}
}

func TestPublicValues(t *testing.T) {
	pub := mustLoad(t, nil).Public()
	for name, want := range map[string]any{
		"LISTEN_ADDR":                ":7000",
		"REQUEST_TIMEOUT_SECONDS":    300,
		"SSE_KEEPALIVE_SECONDS":      15,
		"MAX_BODY_BYTES":             int64(1 << 20),
		"LOG_LEVEL":                  "INFO",
		"RAG_ENABLED":                true,
		"RAG_SIM_WEIGHT":             0.5,
		"RAG_RECENCY_HALF_LIFE_DAYS": 7.0,
		"EMBED_MODEL":                "",
		"EMBED_BASE_URL":             "http://localhost:11434",
		"ALLOWED_ROOMS":              []string{},
		"ACTIVATION_KEYWORDS":        []string{"ada", "hey ada"},
	} {
		if got := pub[name]; !reflect.DeepEqual(got, want) {
			t.Errorf("Public()[%s] = %#v, want %#v", name, got, want)
		}
	}
	pub["ACTIVATION_KEYWORDS"].([]string)[0] = "changed"
	if c := mustLoad(t, nil); c.Public()["ACTIVATION_KEYWORDS"].([]string)[0] != "ada" {
		t.Error("Public shares its slices with the Config")
	}
}

// TestPublicRoundTrip feeds Public's values back to Load: the result must
// equal the original, secrets aside, so Public shows every effective value.
func TestPublicRoundTrip(t *testing.T) {
	orig := mustLoad(t, golden)
	back := map[string]string{}
	for name, v := range orig.Public() {
		if list, ok := v.([]string); ok {
			back[name] = strings.Join(list, ",")
		} else {
			back[name] = fmt.Sprint(v)
		}
	}
	for _, s := range table(orig) { // secrets are not in Public
		if s.secret {
			back[s.name] = golden[s.name]
		}
	}
	diffFields(t, mustLoad(t, back), orig)
}
