package config

import (
	"errors"
	"log/slog"
	"net/netip"
	"path/filepath"
	"strings"
	"time"
)

// Config holds every setting, parsed and validated once at start-up.
// Field comments name the environment variable; settings.go documents them.
// Secret fields carry json:"-", and String, GoString and LogValue print the
// redacted Public form, so a stray log line cannot leak them.
type Config struct {
	// Service.
	ListenAddr     string         // LISTEN_ADDR
	DataDir        string         // DATA_DIR
	DBSync         string         // DB_SYNC: "full" or "normal"
	RequestTimeout time.Duration  // REQUEST_TIMEOUT_SECONDS
	ShutdownGrace  time.Duration  // SHUTDOWN_GRACE_SECONDS
	MaxBodyBytes   int64          // MAX_BODY_BYTES
	SSEKeepAlive   time.Duration  // SSE_KEEPALIVE_SECONDS
	LogLevel       slog.Level     // LOG_LEVEL
	LogFormat      string         // LOG_FORMAT: "text" or "json"
	APIKey         string         `json:"-"` // API_KEY (secret)
	CORSOrigins    []string       // CORS_ORIGINS; empty = CORS off
	TrustedProxies []netip.Prefix // TRUSTED_PROXIES; empty = trust no client header
	PublicURL      string         // PUBLIC_URL; empty = no member links to the memory page
	MetricsEnabled bool           // METRICS_ENABLED
	MetricsToken   string         `json:"-"` // METRICS_TOKEN (secret); empty = /metrics takes API_KEY
	MetricsNets    []netip.Prefix // METRICS_ALLOWED_NETWORKS; empty = any address
	AIName         string         // AI_NAME
	UserName       string         // USER_NAME
	TimeZone       string         // TIMEZONE: IANA name; empty = UTC
	PersonaFile    string         // PERSONA_FILE; empty = the persona embedded in the binary
	FAQFile        string         // FAQ_FILE; empty = no FAQ file

	// Retrieval (RAG).
	RAGEnabled          bool          // RAG_ENABLED
	RAGEnablePersona    bool          // RAG_ENABLE_PERSONA
	RAGEnableFAQ        bool          // RAG_ENABLE_FAQ
	RAGEnableMemory     bool          // RAG_ENABLE_MEMORY
	RAGEnableTurn       bool          // RAG_ENABLE_TURN
	RAGEnableSummary    bool          // RAG_ENABLE_SUMMARY
	RAGDebug            bool          // RAG_DEBUG
	RAGTurnTopK         int           // RAG_TURN_TOP_K
	RAGFAQTopK          int           // RAG_FAQ_TOP_K
	RAGMemoryTopK       int           // RAG_MEMORY_TOP_K
	RAGSummaryTopK      int           // RAG_SUMMARY_TOP_K
	RAGSimWeight        float64       // RAG_SIM_WEIGHT
	RAGImportanceWeight float64       // RAG_IMPORTANCE_WEIGHT
	RAGRecencyBonus     float64       // RAG_RECENCY_BONUS
	RAGRecencyHalfLife  time.Duration // RAG_RECENCY_HALF_LIFE_DAYS
	RAGSummaryEveryN    int           // RAG_SUMMARY_EVERY_N
	RAGRecallTopK       int           // RAG_RECALL_TOP_K
	RAGContextBudget    int           // RAG_CONTEXT_BUDGET
	RAGRelevanceFloor   float64       // RAG_RELEVANCE_FLOOR
	RAGSearchMode       string        // RAG_SEARCH_MODE: hybrid, vector or keyword
	RAGAutoMemory       bool          // RAG_AUTO_MEMORY
	RAGMemoryDedup      float64       // RAG_MEMORY_DEDUP
	BackgroundWorkers   int           // BACKGROUND_WORKERS
	VectorDBURL         string        // VECTORDB_URL; empty: the embedded SQLite store
	ChromaToken         string        `json:"-"` // CHROMA_TOKEN (secret)

	// LLM.
	LLMBackend string // LLM_BACKEND: "ollama" or "openai"
	LLMBaseURL string // LLM_BASE_URL, without a trailing slash
	LLMModel   string // LLM_MODEL
	LLMAPIKey  string `json:"-"` // LLM_API_KEY (secret)

	// Embeddings.
	EmbedBackend string // EMBED_BACKEND: "hash", "ollama" or "openai"
	EmbedModel   string // EMBED_MODEL; resolved per backend when empty ("" for hash)
	EmbedBaseURL string // EMBED_BASE_URL; resolved to LLMBaseURL when empty
	EmbedAPIKey  string `json:"-"` // EMBED_API_KEY (secret); resolved to LLMAPIKey when both it and EMBED_BASE_URL are empty

	// Specialists.
	SpecialistsEnabled bool          // SPECIALISTS_ENABLED
	SpecialistMaxTurns int           // SPECIALIST_MAX_TURNS
	SpecialistTimeout  time.Duration // SPECIALIST_TIMEOUT_SECONDS
	WebSearchURL       string        // WEBSEARCH_URL; empty = web_search disabled
	MusicProviderURL   string        // MUSICPROVIDER_URL
	MusicProviderUser  string        // MUSICPROVIDER_USER; empty = media not configured
	MusicProviderToken string        `json:"-"` // MUSICPROVIDER_TOKEN (secret)
	OCRMaxBytes        int64         // OCR_MAX_BYTES
	TranscribeURL      string        // TRANSCRIBE_URL; empty = voice not enabled
	TranscribeModel    string        // TRANSCRIBE_MODEL
	TranscribeAPIKey   string        `json:"-"` // TRANSCRIBE_API_KEY
	AudioMaxBytes      int64         // AUDIO_MAX_BYTES
	MCPServersFile     string        // MCP_SERVERS_FILE; empty = no MCP servers
	MCPToolTimeout     time.Duration // MCP_TOOL_TIMEOUT_SECONDS
	MCPRoomTools       []string      // MCP_ROOM_TOOLS; empty = no MCP tool in rooms
	OCRConcurrency     int           // OCR_CONCURRENCY
	TesseractPath      string        // TESSERACT_PATH
	TesseractLang      string        // TESSERACT_LANG

	// Matrix bridge.
	MatrixHomeserver     string   // MATRIX_HOMESERVER; empty = bridge off
	MatrixUserID         string   // MATRIX_USER_ID
	MatrixAccessToken    string   `json:"-"` // MATRIX_ACCESS_TOKEN (secret)
	MatrixPassword       string   `json:"-"` // MATRIX_PASSWORD (secret)
	MatrixRecoveryKey    string   `json:"-"` // MATRIX_RECOVERY_KEY (secret)
	BotDisplayName       string   // BOT_DISPLAY_NAME
	AdaAPIURL            string   // ADA_API_URL; empty = in-process core
	AllowedRooms         []string // ALLOWED_ROOMS; empty = any room
	NeverJoinRooms       []string // NEVER_JOIN_ROOMS
	AllowedUsers         []string // ALLOWED_USERS; empty = anyone
	RespondToMentions    bool     // RESPOND_TO_MENTIONS
	RespondToDMs         bool     // RESPOND_TO_DMS
	RespondToDisplayName bool     // RESPOND_TO_DISPLAY_NAME
	RespondToKeywords    bool     // RESPOND_TO_KEYWORDS
	ActivationKeywords   []string // ACTIVATION_KEYWORDS
	MaxContextMessages   int      // MAX_CONTEXT_MESSAGES
	StoreInRAG           bool     // STORE_IN_RAG
	AllowPrivacyOptOut   bool     // ALLOW_PRIVACY_OPT_OUT
	DataRetentionDays    int      // DATA_RETENTION_DAYS; 0 = keep forever
	RoomDataOnLeave      string   // ROOM_DATA_ON_LEAVE: keep or purge
	SendIntroOnJoin      bool     // SEND_INTRO_ON_JOIN
	BotWorkers           int      // BOT_WORKERS
	// Room settings and quotas (issue 24).
	RoomModels            []string // ROOM_MODELS; empty = only LLM_MODEL
	MemberAnswersPerHour  int      // MEMBER_ANSWERS_PER_HOUR; 0 = unlimited
	RoomAnswersPerHour    int      // ROOM_ANSWERS_PER_HOUR; 0 = unlimited
	MemberTokensPerDay    int      // MEMBER_TOKENS_PER_DAY; 0 = unlimited
	RoomTokensPerDay      int      // ROOM_TOKENS_PER_DAY; 0 = unlimited
	QuotaExemptModerators bool     // QUOTA_EXEMPT_MODERATORS
	StreamEdits           bool     // STREAM_EDITS
	StreamEditSeconds     float64  // STREAM_EDIT_SECONDS
	StreamMaxEdits        int      // STREAM_MAX_EDITS
	// Reminders (issue 42).
	MemberPendingReminders int // MEMBER_PENDING_REMINDERS; 0 = reminders off
	RoomPendingReminders   int // ROOM_PENDING_REMINDERS; 0 = reminders off
}

// Load parses and validates every setting. getenv is usually os.Getenv
// (after godotenv has loaded .env, in cmd). A missing or empty variable means
// the default; values are trimmed of surrounding spaces. All problems are
// reported at once, joined with errors.Join, one line per setting.
func Load(getenv func(string) string) (*Config, error) {
	c := new(Config)
	var errs []error
	failed := make(map[string]bool)
	for _, s := range table(c) {
		raw := strings.TrimSpace(getenv(s.name))
		if raw == "" {
			raw = s.def
		}
		if err := s.val.set(raw); err != nil {
			errs = append(errs, s.invalid(raw, err))
			failed[s.name] = true
		}
	}
	c.resolve()
	errs = append(errs, c.check(failed)...)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return c, nil
}

// BridgeEnabled reports whether the Matrix bridge is configured.
func (c *Config) BridgeEnabled() bool { return c.MatrixHomeserver != "" }

// DBPath is the SQLite database file, DATA_DIR/ada.db.
func (c *Config) DBPath() string { return filepath.Join(c.DataDir, "ada.db") }
