package config

import (
	"log/slog"
	"net/netip"
	"reflect"
	"testing"
	"time"
)

// defaults is the documented configuration of an empty environment.
func defaults() *Config {
	return &Config{
		ListenAddr:     ":7000",
		DataDir:        "./data",
		DBSync:         "full",
		RequestTimeout: 300 * time.Second,
		ShutdownGrace:  30 * time.Second,
		SSEKeepAlive:   15 * time.Second,
		MaxBodyBytes:   1 << 20,
		LogLevel:       slog.LevelInfo,
		LogFormat:      "text",
		MetricsEnabled: true,
		AIName:         "Ada",
		UserName:       "User",

		RAGEnabled:          true,
		RAGEnablePersona:    true,
		RAGEnableFAQ:        true,
		RAGEnableMemory:     true,
		RAGEnableTurn:       true,
		RAGEnableSummary:    true,
		RAGTurnTopK:         4,
		RAGFAQTopK:          2,
		RAGMemoryTopK:       3,
		RAGSummaryTopK:      2,
		RAGSimWeight:        0.5,
		RAGImportanceWeight: 0.5,
		RAGRecencyBonus:     0.1,
		RAGRecencyHalfLife:  7 * 24 * time.Hour,
		RAGSummaryEveryN:    8,
		RAGRecallTopK:       8,
		RAGContextBudget:    4000,
		RAGRelevanceFloor:   0.15,
		RAGSearchMode:       "hybrid",
		RAGAutoMemory:       true,
		RAGMemoryDedup:      0.95,
		BackgroundWorkers:   2,

		LLMBackend: "ollama",
		LLMBaseURL: "http://localhost:11434",
		LLMModel:   "qwen3:8b",

		EmbedBackend: "hash",
		EmbedBaseURL: "http://localhost:11434",

		SpecialistsEnabled: true,
		SpecialistMaxTurns: 5,
		SpecialistTimeout:  30 * time.Second,
		MusicProviderURL:   "https://api.listenbrainz.org",
		OCRMaxBytes:        10 << 20,
		TranscribeModel:    "whisper-1",
		AudioMaxBytes:      25 << 20,
		MCPToolTimeout:     30 * time.Second,
		MCPRoomTools:       []string{},
		OCRConcurrency:     2,
		TesseractPath:      "tesseract",
		TesseractLang:      "eng",

		BotDisplayName:         "Ada",
		AllowedRooms:           []string{},
		CORSOrigins:            []string{},
		TrustedProxies:         []netip.Prefix{},
		MetricsNets:            []netip.Prefix{},
		NeverJoinRooms:         []string{},
		AllowedUsers:           []string{},
		RespondToMentions:      true,
		RespondToDMs:           true,
		RespondToDisplayName:   true,
		RespondToKeywords:      true,
		ActivationKeywords:     []string{"ada", "hey ada"},
		MaxContextMessages:     10,
		StoreInRAG:             true,
		AllowPrivacyOptOut:     true,
		DataRetentionDays:      90,
		RoomDataOnLeave:        "keep",
		SendIntroOnJoin:        true,
		BotWorkers:             4,
		RoomModels:             []string{},
		StreamEditSeconds:      1,
		StreamMaxEdits:         30,
		MemberPendingReminders: 20,
		RoomPendingReminders:   100,
	}
}

func TestLoadDefaults(t *testing.T) {
	for name, m := range map[string]map[string]string{
		"unset":  nil,
		"empty":  {"RAG_TURN_TOP_K": "", "LISTEN_ADDR": "", "ACTIVATION_KEYWORDS": ""},
		"blanks": {"RAG_TURN_TOP_K": "  ", "LOG_LEVEL": "\t", "RAG_ENABLED": " "},
	} {
		t.Run(name, func(t *testing.T) {
			c := mustLoad(t, m)
			diffFields(t, c, defaults())
			if c.BridgeEnabled() {
				t.Error("BridgeEnabled() = true without MATRIX_HOMESERVER")
			}
			if got, want := c.DBPath(), "data/ada.db"; got != want {
				t.Errorf("DBPath() = %q, want %q", got, want)
			}
		})
	}
}

// golden sets every setting to a valid non-default value, exercising the
// accepted spellings (case, yes/no/on/off/0, spaces, empty list items).
var golden = map[string]string{
	"LISTEN_ADDR":              "127.0.0.1:8081",
	"DATA_DIR":                 "/var/lib/ada",
	"DB_SYNC":                  "Normal",
	"REQUEST_TIMEOUT_SECONDS":  "120",
	"SHUTDOWN_GRACE_SECONDS":   "7",
	"SSE_KEEPALIVE_SECONDS":    "5",
	"MAX_BODY_BYTES":           "2097152",
	"LOG_LEVEL":                "warning",
	"LOG_FORMAT":               "JSON",
	"API_KEY":                  "api-secret-1-long-enough",
	"TRUSTED_PROXIES":          "127.0.0.1, ::1,10.0.0.0/8",
	"METRICS_TOKEN":            "metrics-secret-long-enough",
	"METRICS_ALLOWED_NETWORKS": "10.0.0.0/8,::1",
	"METRICS_ENABLED":          "off",
	"PUBLIC_URL":               "https://ada.example.org/",
	"AI_NAME":                  "Eve",
	"USER_NAME":                "Sam",
	"PERSONA_FILE":             "/etc/ada/persona.md",
	"FAQ_FILE":                 "/etc/ada/faq.jsonl",

	"RAG_ENABLED":                "false",
	"RAG_ENABLE_PERSONA":         "no",
	"RAG_ENABLE_FAQ":             "0",
	"RAG_ENABLE_MEMORY":          "off",
	"RAG_ENABLE_TURN":            "FALSE",
	"RAG_ENABLE_SUMMARY":         "No",
	"RAG_DEBUG":                  "yes",
	"RAG_TURN_TOP_K":             "20",
	"RAG_FAQ_TOP_K":              "10",
	"RAG_MEMORY_TOP_K":           "1",
	"RAG_SUMMARY_TOP_K":          "5",
	"RAG_SIM_WEIGHT":             "0.7",
	"RAG_IMPORTANCE_WEIGHT":      "0.3",
	"RAG_RECENCY_BONUS":          "0",
	"RAG_RECENCY_HALF_LIFE_DAYS": "1.5",
	"RAG_SUMMARY_EVERY_N":        "4",
	"RAG_RECALL_TOP_K":           "6",
	"RAG_CONTEXT_BUDGET":         "6000",
	"RAG_RELEVANCE_FLOOR":        "0.3",
	"RAG_SEARCH_MODE":            "vector",
	"RAG_AUTO_MEMORY":            "false",
	"RAG_MEMORY_DEDUP":           "0.9",
	"BACKGROUND_WORKERS":         "3",
	"VECTORDB_URL":               "http://chroma.example.org:8000/",
	"CHROMA_TOKEN":               "chroma-secret-9",

	"LLM_BACKEND":  "openai",
	"LLM_BASE_URL": "https://llm.example.org/v1/",
	"LLM_MODEL":    "gpt-4o-mini",
	"LLM_API_KEY":  "llm-secret-2",

	"EMBED_BACKEND":  "Ollama",
	"EMBED_MODEL":    "nomic-embed-text:v1.5",
	"EMBED_BASE_URL": "http://embed.internal:11434",
	"EMBED_API_KEY":  "embed-secret-3",

	"SPECIALISTS_ENABLED":        "off",
	"SPECIALIST_MAX_TURNS":       "2",
	"SPECIALIST_TIMEOUT_SECONDS": "10",
	"WEBSEARCH_URL":              "http://searx.internal:8080",
	"MUSICPROVIDER_URL":          "https://lb.example.org",
	"MUSICPROVIDER_USER":         "alice",
	"MUSICPROVIDER_TOKEN":        "music-secret-4",
	"OCR_MAX_BYTES":              "5242880",
	"TRANSCRIBE_URL":             "http://whisper.internal:8080",
	"TRANSCRIBE_MODEL":           "large-v3",
	"TRANSCRIBE_API_KEY":         "stt-secret-8",
	"AUDIO_MAX_BYTES":            "1048576",
	"MCP_SERVERS_FILE":           "/etc/ada/mcp.json",
	"MCP_TOOL_TIMEOUT_SECONDS":   "12",
	"MCP_ROOM_TOOLS":             "wiki, everything.echo",
	"OCR_CONCURRENCY":            "3",
	"TESSERACT_PATH":             "/usr/bin/tesseract",
	"TESSERACT_LANG":             "eng+deu",

	"MATRIX_HOMESERVER":        "https://matrix.example.org",
	"MATRIX_USER_ID":           "@eve:example.org",
	"MATRIX_ACCESS_TOKEN":      "syt-secret-5",
	"MATRIX_PASSWORD":          "pass word secret-6",
	"MATRIX_RECOVERY_KEY":      "EsT1 secret-7",
	"BOT_DISPLAY_NAME":         "Eve Bot",
	"ADA_API_URL":              "http://ada.internal:7000",
	"ALLOWED_ROOMS":            " !a:example.org , ,!b:example.org,",
	"CORS_ORIGINS":             "https://chat.example.org, *",
	"NEVER_JOIN_ROOMS":         "#spam:example.org",
	"ALLOWED_USERS":            "@*:example.org, @bob:other.org",
	"RESPOND_TO_MENTIONS":      "false",
	"RESPOND_TO_DMS":           "0",
	"RESPOND_TO_DISPLAY_NAME":  "no",
	"RESPOND_TO_KEYWORDS":      "Off",
	"ACTIVATION_KEYWORDS":      "eve, hey eve",
	"MAX_CONTEXT_MESSAGES":     "0",
	"STORE_IN_RAG":             "false",
	"ALLOW_PRIVACY_OPT_OUT":    "false",
	"DATA_RETENTION_DAYS":      "0",
	"ROOM_DATA_ON_LEAVE":       "purge",
	"SEND_INTRO_ON_JOIN":       "false",
	"BOT_WORKERS":              "8",
	"ROOM_MODELS":              "gpt-4o, llama3",
	"MEMBER_ANSWERS_PER_HOUR":  "5",
	"ROOM_ANSWERS_PER_HOUR":    "50",
	"MEMBER_TOKENS_PER_DAY":    "20000",
	"ROOM_TOKENS_PER_DAY":      "200000",
	"QUOTA_EXEMPT_MODERATORS":  "yes",
	"STREAM_EDITS":             "on",
	"STREAM_EDIT_SECONDS":      "0.5",
	"STREAM_MAX_EDITS":         "12",
	"MEMBER_PENDING_REMINDERS": "3",
	"ROOM_PENDING_REMINDERS":   "9",
	"TIMEZONE":                 "Europe/Berlin",
}

func goldenConfig() *Config {
	return &Config{
		ListenAddr:     "127.0.0.1:8081",
		DataDir:        "/var/lib/ada",
		DBSync:         "normal",
		RequestTimeout: 2 * time.Minute,
		ShutdownGrace:  7 * time.Second,
		SSEKeepAlive:   5 * time.Second,
		MaxBodyBytes:   2 << 20,
		LogLevel:       slog.LevelWarn,
		LogFormat:      "json",
		APIKey:         "api-secret-1-long-enough",
		MetricsToken:   "metrics-secret-long-enough",
		AIName:         "Eve",
		UserName:       "Sam",
		PersonaFile:    "/etc/ada/persona.md",
		FAQFile:        "/etc/ada/faq.jsonl",

		RAGDebug:            true,
		RAGTurnTopK:         20,
		RAGFAQTopK:          10,
		RAGMemoryTopK:       1,
		RAGSummaryTopK:      5,
		RAGSimWeight:        0.7,
		RAGImportanceWeight: 0.3,
		RAGRecencyBonus:     0,
		RAGRecencyHalfLife:  36 * time.Hour,
		RAGSummaryEveryN:    4,
		RAGRecallTopK:       6,
		RAGContextBudget:    6000,
		RAGRelevanceFloor:   0.3,
		RAGSearchMode:       "vector",
		RAGAutoMemory:       false,
		RAGMemoryDedup:      0.9,
		BackgroundWorkers:   3,
		VectorDBURL:         "http://chroma.example.org:8000",
		ChromaToken:         "chroma-secret-9",

		LLMBackend: "openai",
		LLMBaseURL: "https://llm.example.org/v1",
		LLMModel:   "gpt-4o-mini",
		LLMAPIKey:  "llm-secret-2",

		EmbedBackend: "ollama",
		EmbedModel:   "nomic-embed-text:v1.5",
		EmbedBaseURL: "http://embed.internal:11434",
		EmbedAPIKey:  "embed-secret-3",

		SpecialistMaxTurns: 2,
		SpecialistTimeout:  10 * time.Second,
		WebSearchURL:       "http://searx.internal:8080",
		MusicProviderURL:   "https://lb.example.org",
		MusicProviderUser:  "alice",
		MusicProviderToken: "music-secret-4",
		OCRMaxBytes:        5 << 20,
		TranscribeURL:      "http://whisper.internal:8080",
		TranscribeModel:    "large-v3",
		TranscribeAPIKey:   "stt-secret-8",
		AudioMaxBytes:      1 << 20,
		MCPServersFile:     "/etc/ada/mcp.json",
		MCPToolTimeout:     12 * time.Second,
		MCPRoomTools:       []string{"wiki", "everything.echo"},
		OCRConcurrency:     3,
		TesseractPath:      "/usr/bin/tesseract",
		TesseractLang:      "eng+deu",

		PublicURL:          "https://ada.example.org",
		MatrixHomeserver:   "https://matrix.example.org",
		MatrixUserID:       "@eve:example.org",
		MatrixAccessToken:  "syt-secret-5",
		MatrixPassword:     "pass word secret-6",
		MatrixRecoveryKey:  "EsT1 secret-7",
		BotDisplayName:     "Eve Bot",
		AdaAPIURL:          "http://ada.internal:7000",
		AllowedRooms:       []string{"!a:example.org", "!b:example.org"},
		CORSOrigins:        []string{"https://chat.example.org", "*"},
		TrustedProxies:     []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("10.0.0.0/8")},
		MetricsNets:        []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")},
		NeverJoinRooms:     []string{"#spam:example.org"},
		AllowedUsers:       []string{"@*:example.org", "@bob:other.org"},
		ActivationKeywords: []string{"eve", "hey eve"},
		BotWorkers:         8,

		RoomModels:             []string{"gpt-4o", "llama3"},
		MemberAnswersPerHour:   5,
		RoomAnswersPerHour:     50,
		MemberTokensPerDay:     20000,
		RoomTokensPerDay:       200000,
		QuotaExemptModerators:  true,
		StreamEdits:            true,
		StreamEditSeconds:      0.5,
		StreamMaxEdits:         12,
		MemberPendingReminders: 3,
		RoomPendingReminders:   9,
		TimeZone:               "Europe/Berlin",
		RoomDataOnLeave:        "purge",
	}
}

func TestLoadGolden(t *testing.T) {
	c := mustLoad(t, golden)
	diffFields(t, c, goldenConfig())
	if !c.BridgeEnabled() {
		t.Error("BridgeEnabled() = false with MATRIX_HOMESERVER set")
	}
	if got, want := c.DBPath(), "/var/lib/ada/ada.db"; got != want {
		t.Errorf("DBPath() = %q, want %q", got, want)
	}
}

// TestGoldenCoversEverything keeps the golden test honest: every setting is
// in golden, and every field of Config differs from its default there.
func TestGoldenCoversEverything(t *testing.T) {
	notCovered := map[string]bool{}
	for _, s := range table(new(Config)) {
		if _, ok := golden[s.name]; !ok && !notCovered[s.name] {
			t.Errorf("golden lacks %s", s.name)
		}
	}
	if n, want := len(golden), len(table(new(Config))); n != want {
		t.Errorf("golden has %d entries, table has %d settings", n, want)
	}
	g, d := reflect.ValueOf(goldenConfig()).Elem(), reflect.ValueOf(defaults()).Elem()
	for i := range g.NumField() {
		name := g.Type().Field(i).Name
		if !notCovered[name] && reflect.DeepEqual(g.Field(i).Interface(), d.Field(i).Interface()) {
			t.Errorf("field %s has its default value in goldenConfig", name)
		}
	}
}

func TestLoadResolvesEmbedDefaults(t *testing.T) {
	tests := []struct {
		name            string
		env             map[string]string
		model, url, key string
	}{
		{"hash", nil, "", "http://localhost:11434", ""},
		{"ollama", map[string]string{"EMBED_BACKEND": "ollama"}, "nomic-embed-text", "http://localhost:11434", ""},
		{"openai inherits LLM address and key",
			map[string]string{"EMBED_BACKEND": "openai", "LLM_BASE_URL": "https://api.example.org/", "LLM_API_KEY": "k1"},
			"text-embedding-3-small", "https://api.example.org", "k1"},
		{"own address does not get the LLM key",
			map[string]string{"EMBED_BACKEND": "openai", "EMBED_BASE_URL": "https://embed.example.org", "LLM_API_KEY": "k1"},
			"text-embedding-3-small", "https://embed.example.org", ""},
		{"own key wins",
			map[string]string{"EMBED_BACKEND": "ollama", "EMBED_MODEL": "m", "LLM_API_KEY": "k1", "EMBED_API_KEY": "k2"},
			"m", "http://localhost:11434", "k2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, tt.env)
			if c.EmbedModel != tt.model || c.EmbedBaseURL != tt.url || c.EmbedAPIKey != tt.key {
				t.Errorf("EmbedModel, EmbedBaseURL, EmbedAPIKey = %q, %q, %q; want %q, %q, %q",
					c.EmbedModel, c.EmbedBaseURL, c.EmbedAPIKey, tt.model, tt.url, tt.key)
			}
		})
	}
}

func TestLoadBools(t *testing.T) {
	for raw, want := range map[string]bool{
		"true": true, "TRUE": true, "True": true, "1": true, "yes": true, "YES": true, "on": true, "On": true,
		"false": false, "FALSE": false, "0": false, "no": false, "No": false, "off": false, "OFF": false,
	} {
		c := mustLoad(t, map[string]string{"RAG_DEBUG": raw, "RAG_ENABLED": raw})
		if c.RAGDebug != want || c.RAGEnabled != want {
			t.Errorf("%q: RAGDebug, RAGEnabled = %v, %v; want %v", raw, c.RAGDebug, c.RAGEnabled, want)
		}
	}
}

func TestLoadLists(t *testing.T) {
	tests := []struct {
		raw  string
		want []string
	}{
		{"", []string{"ada", "hey ada"}}, // the default
		{",", []string{}},
		{" , ,, ", []string{}},
		{"bob", []string{"bob"}},
		{"a,,b", []string{"a", "b"}},
		{"  a ,\tb  , ", []string{"a", "b"}},
		{",hey ada,", []string{"hey ada"}},
	}
	for _, tt := range tests {
		c := mustLoad(t, map[string]string{"ACTIVATION_KEYWORDS": tt.raw})
		if !reflect.DeepEqual(c.ActivationKeywords, tt.want) {
			t.Errorf("ACTIVATION_KEYWORDS=%q: got %q, want %q", tt.raw, c.ActivationKeywords, tt.want)
		}
	}
	c := mustLoad(t, map[string]string{"ALLOWED_ROOMS": " !x:example.org ,, #room:example.org ,"})
	if want := []string{"!x:example.org", "#room:example.org"}; !reflect.DeepEqual(c.AllowedRooms, want) {
		t.Errorf("AllowedRooms = %q, want %q", c.AllowedRooms, want)
	}
}

func TestLoadLogLevels(t *testing.T) {
	for raw, want := range map[string]slog.Level{
		"DEBUG": slog.LevelDebug, "debug": slog.LevelDebug, "INFO": slog.LevelInfo,
		"WARNING": slog.LevelWarn, "warn": slog.LevelWarn, "Error": slog.LevelError,
	} {
		if c := mustLoad(t, map[string]string{"LOG_LEVEL": raw}); c.LogLevel != want {
			t.Errorf("LOG_LEVEL=%s: got %v, want %v", raw, c.LogLevel, want)
		}
	}
}
