package config

import (
	"errors"
	"strings"
	"testing"
)

// bridge is a minimal valid Matrix configuration.
var bridge = map[string]string{
	"MATRIX_HOMESERVER":   "https://matrix.example.org",
	"MATRIX_USER_ID":      "@ada:example.org",
	"MATRIX_ACCESS_TOKEN": "tok",
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"RAG_TURN_TOP_K": "40"}, "RAG_TURN_TOP_K=40: must be 1..20"},
		{map[string]string{"TIMEZONE": "Mars/Olympus"}, "TIMEZONE=Mars/Olympus: must be an IANA time zone name, e.g. Europe/Berlin or America/New_York"},
		{map[string]string{"TIMEZONE": "Local"}, "TIMEZONE=Local: must be an IANA time zone name, e.g. Europe/Berlin or America/New_York"},
		{map[string]string{"RAG_TURN_TOP_K": "0"}, "RAG_TURN_TOP_K=0: must be 1..20"},
		{map[string]string{"RAG_TURN_TOP_K": "four"}, "RAG_TURN_TOP_K=four: must be 1..20"},
		{map[string]string{"RAG_TURN_TOP_K": "4.5"}, "RAG_TURN_TOP_K=4.5: must be 1..20"},
		{map[string]string{"RAG_FAQ_TOP_K": "11"}, "RAG_FAQ_TOP_K=11: must be 1..10"},
		{map[string]string{"RAG_MEMORY_TOP_K": "21"}, "RAG_MEMORY_TOP_K=21: must be 1..20"},
		{map[string]string{"RAG_SUMMARY_TOP_K": "-1"}, "RAG_SUMMARY_TOP_K=-1: must be 1..10"},
		{map[string]string{"RAG_SUMMARY_EVERY_N": "101"}, "RAG_SUMMARY_EVERY_N=101: must be 1..100"},
		{map[string]string{"RAG_RECALL_TOP_K": "21"}, "RAG_RECALL_TOP_K=21: must be 0..20"},
		{map[string]string{"CORS_ORIGINS": "https://ok.example.org,chat.example.org/app"}, `CORS_ORIGINS=https://ok.example.org,chat.example.org/app: item "chat.example.org/app" must be an origin such as https://chat.example.org (scheme and host, no path), or *`},
		{map[string]string{"METRICS_TOKEN": "short"}, "METRICS_TOKEN: must be at least 16 characters (it has 5), so that it cannot be guessed: e.g. openssl rand -hex 24 (value not shown: it is a secret)"},
		{map[string]string{"METRICS_TOKEN": "the-same-key-0123", "API_KEY": "the-same-key-0123"}, "METRICS_TOKEN: must differ from API_KEY: the scraper's credential must not unlock the memories"},
		{map[string]string{"CORS_ORIGINS": "https://chat.example.org, *"}, "CORS_ORIGINS: * needs API_KEY: without a key any web page the user opens could read, change and forget every memory through her browser; name the front-end's origin (e.g. https://chat.example.org) or set API_KEY"},
		{map[string]string{"METRICS_ALLOWED_NETWORKS": "10.0.0.0/8,prometheus"}, `METRICS_ALLOWED_NETWORKS=10.0.0.0/8,prometheus: item "prometheus" must be an IP address or a CIDR range, e.g. 127.0.0.1, ::1 or 10.0.0.0/8`},
		{map[string]string{"RAG_ENABLED": "maybe"}, "RAG_ENABLED=maybe: must be true or false (also 1/0, yes/no, on/off)"},
		{map[string]string{"STORE_IN_RAG": "y"}, "STORE_IN_RAG=y: must be true or false (also 1/0, yes/no, on/off)"},
		{map[string]string{"RAG_SIM_WEIGHT": "1.5"}, "RAG_SIM_WEIGHT=1.5: must be 0..1"},
		{map[string]string{"RAG_IMPORTANCE_WEIGHT": "NaN"}, "RAG_IMPORTANCE_WEIGHT=NaN: must be 0..1"},
		{map[string]string{"RAG_RECENCY_BONUS": "-0.1"}, "RAG_RECENCY_BONUS=-0.1: must be 0..1"},
		{map[string]string{"RAG_RECENCY_HALF_LIFE_DAYS": "0"}, "RAG_RECENCY_HALF_LIFE_DAYS=0: must be above 0 and at most 3650 days"},
		{map[string]string{"RAG_RECENCY_HALF_LIFE_DAYS": "7d"}, "RAG_RECENCY_HALF_LIFE_DAYS=7d: must be above 0 and at most 3650 days"},
		{map[string]string{"REQUEST_TIMEOUT_SECONDS": "0"}, "REQUEST_TIMEOUT_SECONDS=0: must be 1..3600"},
		{map[string]string{"REQUEST_TIMEOUT_SECONDS": "5m"}, "REQUEST_TIMEOUT_SECONDS=5m: must be 1..3600"},
		{map[string]string{"SPECIALIST_TIMEOUT_SECONDS": "601"}, "SPECIALIST_TIMEOUT_SECONDS=601: must be 1..600"},
		{map[string]string{"SPECIALIST_MAX_TURNS": "0"}, "SPECIALIST_MAX_TURNS=0: must be 1..20"},
		{map[string]string{"MAX_BODY_BYTES": "10"}, "MAX_BODY_BYTES=10: must be 1024..1073741824"},
		{map[string]string{"OCR_MAX_BYTES": "1e6"}, "OCR_MAX_BYTES=1e6: must be 1024..104857600"},
		{map[string]string{"MAX_CONTEXT_MESSAGES": "101"}, "MAX_CONTEXT_MESSAGES=101: must be 0..100"},
		{map[string]string{"DATA_RETENTION_DAYS": "-1"}, "DATA_RETENTION_DAYS=-1: must be 0..3650"},
		{map[string]string{"BOT_WORKERS": "0"}, "BOT_WORKERS=0: must be 1..64"},
		{map[string]string{"STREAM_EDITS": "sometimes"}, "STREAM_EDITS=sometimes: must be true or false (also 1/0, yes/no, on/off)"},
		{map[string]string{"STREAM_EDIT_SECONDS": "0.05"}, "STREAM_EDIT_SECONDS=0.05: must be 0.1..60"},
		{map[string]string{"STREAM_MAX_EDITS": "1"}, "STREAM_MAX_EDITS=1: must be 2..200"},
		{map[string]string{"AUDIO_MAX_BYTES": "25MB"}, "AUDIO_MAX_BYTES=25MB: must be 1024..104857600"},
		{map[string]string{"TRANSCRIBE_URL": "whisper:8080"}, "TRANSCRIBE_URL=whisper:8080: must be an http or https URL, e.g. https://host.example:8080"},
		{map[string]string{"PUBLIC_URL": "ada.example.org"}, "PUBLIC_URL=ada.example.org: must be an http or https URL, e.g. https://host.example:8080"},
		{map[string]string{"LOG_LEVEL": "verbose"}, "LOG_LEVEL=verbose: must be one of DEBUG, INFO, WARNING (or WARN), ERROR"},
		{map[string]string{"LOG_FORMAT": "xml"}, "LOG_FORMAT=xml: must be one of text, json"},
		{map[string]string{"LLM_BACKEND": "anthropic"}, "LLM_BACKEND=anthropic: must be one of ollama, openai"},
		{map[string]string{"EMBED_BACKEND": "bert"}, "EMBED_BACKEND=bert: must be one of hash, ollama, openai"},
		{map[string]string{"LLM_BASE_URL": "localhost:11434"}, "LLM_BASE_URL=localhost:11434: must be an http or https URL, e.g. https://host.example:8080"},
		{map[string]string{"WEBSEARCH_URL": "searx"}, "WEBSEARCH_URL=searx: must be an http or https URL, e.g. https://host.example:8080"},
		{map[string]string{"LISTEN_ADDR": "7000"}, "LISTEN_ADDR=7000: must be host:port, e.g. :7000 or 127.0.0.1:7000"},
		{map[string]string{"LISTEN_ADDR": ":70000"}, "LISTEN_ADDR=:70000: port out of range: must be 0 to 65535"},
		{map[string]string{"LISTEN_ADDR": "127.0.0.1:99999"}, "LISTEN_ADDR=127.0.0.1:99999: port out of range: must be 0 to 65535"},
		{map[string]string{"LISTEN_ADDR": "127.0.0.1:http"}, "LISTEN_ADDR=127.0.0.1:http: must be host:port with a numeric port, e.g. :7000 or 127.0.0.1:7000"},
		{map[string]string{"TESSERACT_LANG": "eng deu"}, "TESSERACT_LANG=eng deu: must be tesseract language codes joined by +, e.g. eng or eng+deu"},
		{merge(bridge, map[string]string{"MATRIX_USER_ID": "ada"}), "MATRIX_USER_ID=ada: must be a Matrix user id, e.g. @ada:example.org"},
		{map[string]string{"ALLOWED_ROOMS": "!a:x, general"}, `ALLOWED_ROOMS=!a:x, general: item "general" must be a room id (!…) or alias (#…:server)`},
		{map[string]string{"NEVER_JOIN_ROOMS": "!"}, `NEVER_JOIN_ROOMS=!: item "!" must be a room id (!…) or alias (#…:server)`},
		{map[string]string{"ALLOWED_USERS": "bob"}, `ALLOWED_USERS=bob: item "bob" must be a user id pattern, e.g. @alice:example.org or @*:example.org`},
		{map[string]string{"API_KEY": "two words"}, "API_KEY: must not contain spaces or control characters (value not shown: it is a secret)"},
		{map[string]string{"API_KEY": "a"}, "API_KEY: must be at least 16 characters (it has 1), so that it cannot be guessed: e.g. openssl rand -hex 24 (value not shown: it is a secret)"},
		{map[string]string{"TRUSTED_PROXIES": "127.0.0.1, nginx"}, `TRUSTED_PROXIES=127.0.0.1, nginx: item "nginx" must be an IP address or a CIDR range, e.g. 127.0.0.1, ::1 or 10.0.0.0/8`},
		{map[string]string{"MATRIX_PASSWORD": "a\nb"}, "MATRIX_PASSWORD: must not contain control characters (value not shown: it is a secret)"},

		// Rules across settings.
		{map[string]string{"MATRIX_HOMESERVER": "https://m.example.org"},
			"MATRIX_USER_ID: required when MATRIX_HOMESERVER is set, e.g. @ada:example.org\n" +
				"MATRIX_ACCESS_TOKEN or MATRIX_PASSWORD: one is required when MATRIX_HOMESERVER is set"},
		{merge(bridge, map[string]string{"MATRIX_ACCESS_TOKEN": ""}),
			"MATRIX_ACCESS_TOKEN or MATRIX_PASSWORD: one is required when MATRIX_HOMESERVER is set"},
		{map[string]string{"MATRIX_ACCESS_TOKEN": "tok"},
			"MATRIX_HOMESERVER: required by MATRIX_ACCESS_TOKEN (leave it empty to run without the Matrix bridge)"},
		{map[string]string{"MATRIX_USER_ID": "@ada:example.org", "MATRIX_PASSWORD": "pw", "MATRIX_RECOVERY_KEY": "k"},
			"MATRIX_HOMESERVER: required by MATRIX_USER_ID, MATRIX_PASSWORD, MATRIX_RECOVERY_KEY (leave them empty to run without the Matrix bridge)"},
		{map[string]string{"MUSICPROVIDER_TOKEN": "tok"}, "MUSICPROVIDER_USER: required when MUSICPROVIDER_TOKEN is set"},
		{map[string]string{"CHROMA_TOKEN": "tok"}, "VECTORDB_URL: required when CHROMA_TOKEN is set (the token is for that Chroma server)"},
		// A setting that failed to parse does not also trip a rule that reads it.
		{map[string]string{"MATRIX_HOMESERVER": "matrix.example.org", "MATRIX_USER_ID": "@ada:example.org", "MATRIX_PASSWORD": "pw"},
			"MATRIX_HOMESERVER=matrix.example.org: must be an http or https URL, e.g. https://host.example:8080"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			c, err := Load(env(tt.env))
			if err == nil {
				t.Fatal("Load succeeded")
			}
			if c != nil {
				t.Error("Load returned a Config with an error")
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n%s\nwant:\n%s", err, tt.want)
			}
		})
	}
}

func TestLoadReportsAllErrors(t *testing.T) {
	_, err := Load(env(map[string]string{
		"BOT_WORKERS":       "many",
		"RAG_TURN_TOP_K":    "40",
		"RAG_ENABLED":       "maybe",
		"LLM_BACKEND":       "gpt",
		"MATRIX_HOMESERVER": "https://m.example.org",
	}))
	want := []string{
		"RAG_ENABLED=maybe: must be true or false (also 1/0, yes/no, on/off)",
		"RAG_TURN_TOP_K=40: must be 1..20",
		"LLM_BACKEND=gpt: must be one of ollama, openai",
		"BOT_WORKERS=many: must be 1..64",
		"MATRIX_USER_ID: required when MATRIX_HOMESERVER is set, e.g. @ada:example.org",
		"MATRIX_ACCESS_TOKEN or MATRIX_PASSWORD: one is required when MATRIX_HOMESERVER is set",
	}
	if err == nil {
		t.Fatal("Load succeeded")
	}
	if got := err.Error(); got != strings.Join(want, "\n") {
		t.Errorf("error:\n%s\nwant (in table order):\n%s", got, strings.Join(want, "\n"))
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != len(want) {
		t.Errorf("want errors.Join of %d errors, got %T", len(want), err)
	}
}

func TestLoadAcceptsBridgeWithPassword(t *testing.T) {
	c := mustLoad(t, map[string]string{
		"MATRIX_HOMESERVER": "http://localhost:8008/",
		"MATRIX_USER_ID":    "@ada:localhost",
		"MATRIX_PASSWORD":   "correct horse battery staple",
	})
	if !c.BridgeEnabled() || c.MatrixHomeserver != "http://localhost:8008" {
		t.Errorf("BridgeEnabled() = %v, MatrixHomeserver = %q", c.BridgeEnabled(), c.MatrixHomeserver)
	}
}
