package config

import (
	"fmt"

	"github.com/ada-chat/ada/core"
)

// setting is one row of the table: an environment variable, its default
// (as text, parsed like any other value), a one-line doc for .env.example,
// whether it is a secret, and the typed value it sets.
type setting struct {
	group  string
	name   string
	def    string
	doc    string
	secret bool
	val    value
}

// invalid builds the error for a value that failed to parse, in the form
// NAME=value: must be ...; a secret's value is never shown.
func (s setting) invalid(raw string, err error) error {
	if s.secret {
		return fmt.Errorf("%s: %v (value not shown: it is a secret)", s.name, err)
	}
	if e, ok := s.val.(echoer); ok {
		raw = e.echo(raw)
	}
	return fmt.Errorf("%s=%s: %v", s.name, raw, err)
}

// Headings of .env.example, in order.
const (
	gService     = "Service"
	gRAG         = "Retrieval (RAG) and memory"
	gLLM         = "LLM backend"
	gEmbed       = "Embeddings"
	gSpecialists = "Specialists"
	gMatrix      = "Matrix bridge"
)

// table binds every setting to its field in c. The order is the order of
// .env.example and of error messages. Secret defaults are always empty.
func table(c *Config) []setting {
	return []setting{
		{gService, "LISTEN_ADDR", ":7000", "Address the HTTP API listens on.", false,
			stringVal{p: &c.ListenAddr, check: checkHostPort, desc: "host:port"}},
		{gService, "DATA_DIR", "./data", "Folder of the SQLite database (ada.db) and other state.", false,
			stringVal{p: &c.DataDir, check: checkOneLine}},
		{gService, "DB_SYNC", "full", "When a write is durable: full = on disk before it is acknowledged; normal = at the next checkpoint (within 0.1 s), so a power loss may lose the last acknowledged writes (a crash of the process loses nothing either way).", false,
			enumVal{p: &c.DBSync, values: []string{"full", "normal"}}},
		{gService, "REQUEST_TIMEOUT_SECONDS", "300", "Upper bound of every request, a whole chat stream included.", false,
			secondsVal{p: &c.RequestTimeout, min: 1, max: 3600}},
		{gService, "SHUTDOWN_GRACE_SECONDS", "30", "On SIGTERM, how long running answers and streams (and the questions the Matrix bridge accepted) get to finish while new requests are answered 503 with Retry-After; then they end with an error.", false,
			secondsVal{p: &c.ShutdownGrace, min: 1, max: 3600}},
		{gService, "SSE_KEEPALIVE_SECONDS", "15", "Seconds of silence after which a chat stream sends a ': keep-alive' comment.", false,
			secondsVal{p: &c.SSEKeepAlive, min: 1, max: 300}},
		{gService, "MAX_BODY_BYTES", "1048576", "Largest request body accepted; larger ones get 413.", false,
			intVal[int64]{p: &c.MaxBodyBytes, min: 1024, max: 1 << 30}},
		{gService, "LOG_LEVEL", "INFO", "Least severe log level written.", false,
			levelVal{p: &c.LogLevel}},
		{gService, "LOG_FORMAT", "text", "Log line format: text for people, json for log collectors.", false,
			enumVal{p: &c.LogFormat, values: []string{"text", "json"}}},
		{gService, "API_KEY", "", "When set, every /v1 endpoint but /v1/healthz and /v1/readyz, /mcp, /metrics (see METRICS_TOKEN) and the memory page need it (Authorization: Bearer <key>; the page's login form); the bridge sends it to ADA_API_URL. At least 16 characters (e.g. openssl rand -hex 24). Wrong keys are counted per client address across all of these: after 5 in a minute the address gets 429 with Retry-After, even with the right key, until the minute is over.", true,
			stringVal{p: &c.APIKey, check: checkAPIKey}},
		{gService, "TRUSTED_PROXIES", "", "Comma-separated IP addresses or CIDR ranges of reverse proxies whose headers are believed: X-Real-IP (else X-Forwarded-For) names the client, for counting wrong keys per client, METRICS_ALLOWED_NETWORKS and the request log; X-Forwarded-Proto: https marks the memory page's cookie Secure. Empty = trust no such header, and every client behind a proxy shares the proxy's count. Behind deploy/nginx/ada.conf (nginx on the same host): 127.0.0.1,::1.", false,
			netsVal{&c.TrustedProxies}},
		{gService, "PUBLIC_URL", "", "The address people reach Ada at (e.g. https://ada.example.org); the links that `!ada web` sends members to the memory page (/ui/) start with it, and https marks the page's session cookie Secure. Without API_KEY, Ada answers only requests whose Host is localhost, a loopback address or this URL's host (set it when a reverse proxy passes the public name). Empty: no member links.", false,
			urlVal{&c.PublicURL}},
		{gService, "METRICS_ENABLED", "true", "Serve Prometheus metrics at GET /metrics (with API_KEY when set) and count them; false = no counting, 404.", false,
			boolVal{&c.MetricsEnabled}},
		{gService, "METRICS_TOKEN", "", "A credential for GET /metrics alone, so that Prometheus need not hold API_KEY (which unlocks every memory): Authorization: Bearer <token> (Prometheus: authorization.credentials_file). When set, /metrics takes it or API_KEY, and nothing else, even without API_KEY. At least 16 characters, not API_KEY; wrong tokens count toward the per-address limit of wrong keys.", true,
			stringVal{p: &c.MetricsToken, check: checkAPIKey}},
		{gService, "METRICS_ALLOWED_NETWORKS", "", "Comma-separated IP addresses or CIDR ranges that may scrape GET /metrics (e.g. 127.0.0.1,10.0.0.0/8); others get 403. From them no key is needed unless METRICS_TOKEN is set (then both). The client's address is the peer's, or the one a proxy in TRUSTED_PROXIES names. Empty = any address (with the credential above).", false,
			netsVal{&c.MetricsNets}},
		{gService, "CORS_ORIGINS", "", "Comma-separated browser origins allowed to call the API (e.g. https://chat.example.org), or * (only with API_KEY: without a key any web page could read every memory); empty = CORS off.", false,
			listVal{p: &c.CORSOrigins, check: checkOrigin, desc: "list of origins"}},
		{gService, "AI_NAME", "Ada", "The assistant's name, used in prompts and /v1/info.", false,
			stringVal{p: &c.AIName, check: checkOneLine}},
		{gService, "USER_NAME", "User", "How the assistant calls the user of the HTTP API in prompts.", false,
			stringVal{p: &c.UserName, check: checkOneLine}},
		{gService, "TIMEZONE", "", "Time zone (IANA name, e.g. Europe/Berlin) in which Ada reads and shows times: a Matrix room's reminders (`!ada remind`) unless the room chose its own with `!ada set timezone`; empty = UTC.", false,
			stringVal{p: &c.TimeZone, check: checkTimeZone, desc: "IANA time zone"}},
		{gService, "PERSONA_FILE", "", "Persona Markdown file, split on ## headings; empty = the default persona built into the binary.", false,
			stringVal{p: &c.PersonaFile, check: checkOneLine, desc: "path"}},
		{gService, "FAQ_FILE", "", "FAQ file, JSON Lines of {question, answer, topic}, loaded idempotently; empty = none.", false,
			stringVal{p: &c.FAQFile, check: checkOneLine, desc: "path"}},

		{gRAG, "RAG_ENABLED", "true", "Master switch for retrieval and the memory endpoints (503 when off).", false,
			boolVal{&c.RAGEnabled}},
		{gRAG, "RAG_ENABLE_PERSONA", "true", "Put the persona into prompts.", false,
			boolVal{&c.RAGEnablePersona}},
		{gRAG, "RAG_ENABLE_FAQ", "true", "Retrieve FAQ entries for prompts.", false,
			boolVal{&c.RAGEnableFAQ}},
		{gRAG, "RAG_ENABLE_MEMORY", "true", "Retrieve long-term memories for prompts.", false,
			boolVal{&c.RAGEnableMemory}},
		{gRAG, "RAG_ENABLE_TURN", "true", "Retrieve earlier turns of the conversation for prompts.", false,
			boolVal{&c.RAGEnableTurn}},
		{gRAG, "RAG_ENABLE_SUMMARY", "true", "Retrieve conversation summaries for prompts (and write them).", false,
			boolVal{&c.RAGEnableSummary}},
		{gRAG, "RAG_DEBUG", "false", "Serve /v1/debug/rag and /v1/debug/prompt (404 when off).", false,
			boolVal{&c.RAGDebug}},
		{gRAG, "RAG_TURN_TOP_K", "4", "Earlier turns per chat when the request has no turns_k.", false,
			intVal[int]{p: &c.RAGTurnTopK, min: 1, max: core.MaxTurnsK}},
		{gRAG, "RAG_FAQ_TOP_K", "2", "FAQ entries per chat when the request has no faq_k.", false,
			intVal[int]{p: &c.RAGFAQTopK, min: 1, max: core.MaxFAQK}},
		{gRAG, "RAG_MEMORY_TOP_K", "3", "Memories per chat when the request has no memory_k.", false,
			intVal[int]{p: &c.RAGMemoryTopK, min: 1, max: core.MaxMemoryK}},
		{gRAG, "RAG_SUMMARY_TOP_K", "2", "Newest summaries of the conversation per chat.", false,
			intVal[int]{p: &c.RAGSummaryTopK, min: 1, max: core.MaxSummaryK}},
		{gRAG, "RAG_SIM_WEIGHT", "0.5", "Memory ranking: weight of similarity.", false,
			floatVal{p: &c.RAGSimWeight, min: 0, max: 1}},
		{gRAG, "RAG_IMPORTANCE_WEIGHT", "0.5", "Memory ranking: weight of importance/5.", false,
			floatVal{p: &c.RAGImportanceWeight, min: 0, max: 1}},
		{gRAG, "RAG_RECENCY_BONUS", "0.1", "Memory ranking: bonus of a brand-new memory, halved every half-life.", false,
			floatVal{p: &c.RAGRecencyBonus, min: 0, max: 1}},
		{gRAG, "RAG_RECENCY_HALF_LIFE_DAYS", "7", "Memory ranking: half-life of the recency bonus, in days (decimals allowed).", false,
			daysVal{p: &c.RAGRecencyHalfLife, max: 3650}},
		{gRAG, "RAG_SUMMARY_EVERY_N", "8", "Write a conversation summary every N exchanges.", false,
			intVal[int]{p: &c.RAGSummaryEveryN, min: 1, max: 100}},
		{gRAG, "RAG_RECALL_TOP_K", "8", "Earlier turns and summaries of the conversation, beyond the recent ones, recalled by relevance per chat when the request has no recall_k, each turn with the turns next to it; 0 = off.", false,
			intVal[int]{p: &c.RAGRecallTopK, min: 0, max: core.MaxRecallK}},
		{gRAG, "RAG_CONTEXT_BUDGET", "4000", "Most tokens (estimated at 4 characters each) a chat's prompt may take: persona, message and recent turns first, then recalled turns, summaries, memories and FAQs by relevance while they fit; 0 = no bound.", false,
			intVal[int]{p: &c.RAGContextBudget, min: 0, max: 1_000_000}},
		{gRAG, "RAG_RELEVANCE_FLOOR", "0.15", "Least relevance (0..1) a memory, FAQ entry or recalled turn needs to enter a chat's context, however important or recent.", false,
			floatVal{p: &c.RAGRelevanceFloor, min: 0, max: 1}},
		{gRAG, "RAG_SEARCH_MODE", "hybrid", "How searches rank: hybrid = keyword (BM25) and vector evidence fused; vector or keyword alone (for comparison: ada eval retrieval).", false,
			enumVal{p: &c.RAGSearchMode, values: []string{"hybrid", "vector", "keyword"}}},
		{gRAG, "RAG_AUTO_MEMORY", "true", "After each stored exchange, ask the LLM in the background for durable facts and keep them as memories (tag auto).", false,
			boolVal{&c.RAGAutoMemory}},
		{gRAG, "RAG_MEMORY_DEDUP", "0.95", "Similarity (0..1) from which a new memory refreshes an existing one of its scope instead of adding a copy.", false,
			floatVal{p: &c.RAGMemoryDedup, min: 0.5, max: 1}},
		{gRAG, "BACKGROUND_WORKERS", "2", "Summaries and memory extractions run at the same time (one at a time per conversation).", false,
			intVal[int]{p: &c.BackgroundWorkers, min: 1, max: 32}},
		{gRAG, "VECTORDB_URL", "", "A Chroma server (HTTP API v2, Chroma 1.0) holding the documents instead of DATA_DIR/ada.db, for several replicas; ?tenant=&database= choose other than Chroma's defaults. Empty: the embedded SQLite store.", false,
			urlVal{&c.VectorDBURL}},
		{gRAG, "CHROMA_TOKEN", "", "Token for a Chroma server with token auth, sent as Authorization: Bearer <token> and X-Chroma-Token: <token> (whichever header the server reads); empty = none. Keep Chroma off public networks either way.", true,
			stringVal{p: &c.ChromaToken, check: checkToken}},

		{gLLM, "LLM_BACKEND", "ollama", "ollama = Ollama's /api/chat; openai = an OpenAI-compatible /v1/chat/completions (llama.cpp, vLLM, LM Studio, OpenAI).", false,
			enumVal{p: &c.LLMBackend, values: []string{"ollama", "openai"}}},
		{gLLM, "LLM_BASE_URL", "http://localhost:11434", "Address of the LLM server.", false,
			urlVal{&c.LLMBaseURL}},
		{gLLM, "LLM_MODEL", "qwen3:8b", "Model name as the LLM server knows it (the default is a thinking model, so include_thinking works).", false,
			stringVal{p: &c.LLMModel, check: checkOneLine}},
		{gLLM, "LLM_API_KEY", "", "Bearer key for the LLM server, if it needs one.", true,
			stringVal{p: &c.LLMAPIKey, check: checkToken}},

		{gEmbed, "EMBED_BACKEND", "hash", "hash = built-in, offline, lexical 768-dim embedder; ollama = /api/embed; openai = /v1/embeddings. Changing it needs `ada reindex`.", false,
			enumVal{p: &c.EmbedBackend, values: []string{"hash", "ollama", "openai"}}},
		{gEmbed, "EMBED_MODEL", "", "Embedding model, must give 768 dimensions; empty = nomic-embed-text (ollama), text-embedding-3-small (openai).", false,
			stringVal{p: &c.EmbedModel, check: checkOneLine}},
		{gEmbed, "EMBED_BASE_URL", "", "Address of the embedding server; empty = LLM_BASE_URL.", false,
			urlVal{&c.EmbedBaseURL}},
		{gEmbed, "EMBED_API_KEY", "", "Bearer key for the embedding server; empty = LLM_API_KEY when EMBED_BASE_URL is empty too.", true,
			stringVal{p: &c.EmbedAPIKey, check: checkToken}},

		{gSpecialists, "SPECIALISTS_ENABLED", "true", "Offer specialists (web_search, media, ocr) to the model.", false,
			boolVal{&c.SpecialistsEnabled}},
		{gSpecialists, "SPECIALIST_MAX_TURNS", "5", "Most specialist calls in one answer.", false,
			intVal[int]{p: &c.SpecialistMaxTurns, min: 1, max: 20}},
		{gSpecialists, "SPECIALIST_TIMEOUT_SECONDS", "30", "Time limit of one specialist run.", false,
			secondsVal{p: &c.SpecialistTimeout, min: 1, max: 600}},
		{gSpecialists, "WEBSEARCH_URL", "", "SearXNG-compatible search service (/search?q=…&format=json); empty = web_search disabled.", false,
			urlVal{&c.WebSearchURL}},
		{gSpecialists, "MUSICPROVIDER_URL", "https://api.listenbrainz.org", "ListenBrainz-compatible API for the media specialist and /v1/media/musicprovider.", false,
			urlVal{&c.MusicProviderURL}},
		{gSpecialists, "MUSICPROVIDER_USER", "", "User whose listening is shown; empty = media not configured.", false,
			stringVal{p: &c.MusicProviderUser, check: checkOneLine}},
		{gSpecialists, "MUSICPROVIDER_TOKEN", "", "Token sent as Authorization: Token <token>, if the provider needs one.", true,
			stringVal{p: &c.MusicProviderToken, check: checkToken}},
		{gSpecialists, "OCR_MAX_BYTES", "10485760", "Largest image read by OCR (upload to /v1/ocr/extract, or download).", false,
			intVal[int64]{p: &c.OCRMaxBytes, min: 1024, max: 100 << 20}},
		{gSpecialists, "OCR_CONCURRENCY", "2", "tesseract processes /v1/ocr/extract may run at once; more uploads wait a few seconds, then get 503.", false,
			intVal[int]{p: &c.OCRConcurrency, min: 1, max: 64}},
		{gSpecialists, "TESSERACT_PATH", "tesseract", "tesseract program, a path or a name looked up in PATH.", false,
			stringVal{p: &c.TesseractPath, check: checkOneLine}},
		{gSpecialists, "TESSERACT_LANG", "eng", "tesseract languages, joined by + (e.g. eng+deu).", false,
			stringVal{p: &c.TesseractLang, check: checkTessLang}},
		{gSpecialists, "TRANSCRIBE_URL", "", "OpenAI-compatible speech-to-text server (POST /v1/audio/transcriptions: whisper.cpp, faster-whisper, OpenAI) for voice messages in Matrix; empty = voice not enabled.", false,
			urlVal{&c.TranscribeURL}},
		{gSpecialists, "TRANSCRIBE_MODEL", "whisper-1", "Model name sent to the speech-to-text server.", false,
			stringVal{p: &c.TranscribeModel, check: checkOneLine}},
		{gSpecialists, "TRANSCRIBE_API_KEY", "", "Bearer key for the speech-to-text server, if it needs one.", true,
			stringVal{p: &c.TranscribeAPIKey, check: checkToken}},
		{gSpecialists, "AUDIO_MAX_BYTES", "26214400", "Largest voice or audio message downloaded and transcribed.", false,
			intVal[int64]{p: &c.AudioMaxBytes, min: 1024, max: 100 << 20}},
		{gSpecialists, "MCP_SERVERS_FILE", "", "JSON file of MCP servers whose tools Ada may call, in the common {\"mcpServers\": {...}} format (stdio command/args/env, or url/headers); read at start, a bad file stops Ada; empty = none.", false,
			stringVal{p: &c.MCPServersFile, check: checkOneLine, desc: "path"}},
		{gSpecialists, "MCP_TOOL_TIMEOUT_SECONDS", "30", "Time limit of one MCP tool call (within SPECIALIST_TIMEOUT_SECONDS); a tool that takes longer fails and the model is told.", false,
			secondsVal{p: &c.MCPToolTimeout, min: 1, max: 600}},
		{gSpecialists, "MCP_ROOM_TOOLS", "", "Comma-separated MCP tools (server.tool), servers, or all, that a Matrix room's moderators may turn on with !ada set tools (a room starts with none); empty = no MCP tool in rooms. The API may use every tool.", false,
			listVal{p: &c.MCPRoomTools, check: checkOneLine, desc: "list of tool or server names"}},

		{gMatrix, "MATRIX_HOMESERVER", "", "Homeserver of the bot account; empty = bridge off (ada up serves the API alone).", false,
			urlVal{&c.MatrixHomeserver}},
		{gMatrix, "MATRIX_USER_ID", "", "The bot's user id, e.g. @ada:example.org; required with MATRIX_HOMESERVER.", false,
			stringVal{p: &c.MatrixUserID, check: checkUserID, desc: "@user:server"}},
		{gMatrix, "MATRIX_ACCESS_TOKEN", "", "Access token of the bot account (this or MATRIX_PASSWORD).", true,
			stringVal{p: &c.MatrixAccessToken, check: checkToken}},
		{gMatrix, "MATRIX_PASSWORD", "", "Password of the bot account, used to log in when there is no access token.", true,
			stringVal{p: &c.MatrixPassword, check: checkSecretText}},
		{gMatrix, "MATRIX_RECOVERY_KEY", "", "Recovery key of the bot's cross-signing keys; empty = one is made on first start and written to DATA_DIR/crypto/recovery-key (mode 0600).", true,
			stringVal{p: &c.MatrixRecoveryKey, check: checkSecretText}},
		{gMatrix, "BOT_DISPLAY_NAME", "Ada", "Display name of the bot; saying it in a room wakes the bot.", false,
			stringVal{p: &c.BotDisplayName, check: checkOneLine}},
		{gMatrix, "ADA_API_URL", "", "Ada API the bridge calls (with API_KEY); empty = the core in the same process.", false,
			urlVal{&c.AdaAPIURL}},
		{gMatrix, "ALLOWED_ROOMS", "", "Comma-separated room ids the bot may join when invited; empty = any room.", false,
			listVal{p: &c.AllowedRooms, check: checkRoom, desc: "list of !room ids or #aliases"}},
		{gMatrix, "NEVER_JOIN_ROOMS", "", "Comma-separated room ids never joined, even if invited and allowed.", false,
			listVal{p: &c.NeverJoinRooms, check: checkRoom, desc: "list of !room ids or #aliases"}},
		{gMatrix, "ALLOWED_USERS", "", "Comma-separated users who may invite and talk to the bot, * as wildcard (e.g. @*:example.org); empty = anyone.", false,
			listVal{p: &c.AllowedUsers, check: checkUserPattern, desc: "list of @user:server patterns"}},
		{gMatrix, "RESPOND_TO_MENTIONS", "true", "Answer when the bot is mentioned.", false,
			boolVal{&c.RespondToMentions}},
		{gMatrix, "RESPOND_TO_DMS", "true", "Answer every message in a direct chat.", false,
			boolVal{&c.RespondToDMs}},
		{gMatrix, "RESPOND_TO_DISPLAY_NAME", "true", "Answer when the bot's display name is written.", false,
			boolVal{&c.RespondToDisplayName}},
		{gMatrix, "RESPOND_TO_KEYWORDS", "true", "Answer when a message holds an activation keyword.", false,
			boolVal{&c.RespondToKeywords}},
		{gMatrix, "ACTIVATION_KEYWORDS", "ada,hey ada", "Comma-separated keywords that wake the bot, matched as whole words, any case.", false,
			listVal{p: &c.ActivationKeywords, check: checkOneLine, desc: "list"}},
		{gMatrix, "MAX_CONTEXT_MESSAGES", "10", "Recent room messages given to the model as context.", false,
			intVal[int]{p: &c.MaxContextMessages, min: 0, max: 100}},
		{gMatrix, "STORE_IN_RAG", "true", "Store room messages, turns and memories (rooms may opt out with !ada privacy off).", false,
			boolVal{&c.StoreInRAG}},
		{gMatrix, "ALLOW_PRIVACY_OPT_OUT", "true", "Allow the !ada privacy commands.", false,
			boolVal{&c.AllowPrivacyOptOut}},
		{gMatrix, "DATA_RETENTION_DAYS", "90", "Delete what the bridge stored once older than this; 0 = keep forever.", false,
			intVal[int]{p: &c.DataRetentionDays, min: 0, max: 3650}},
		{gMatrix, "ROOM_DATA_ON_LEAVE", "keep", "When the bot leaves a room (kicked, banned, the room upgraded, the invitation withdrawn): keep what the room stored until retention, or purge it at once (its messages, turns, summaries and memories).", false,
			enumVal{p: &c.RoomDataOnLeave, values: []string{"keep", "purge"}}},
		{gMatrix, "SEND_INTRO_ON_JOIN", "true", "Post one short introduction after joining a room.", false,
			boolVal{&c.SendIntroOnJoin}},
		{gMatrix, "BOT_WORKERS", "4", "Rooms answered at the same time (each room is answered in order).", false,
			intVal[int]{p: &c.BotWorkers, min: 1, max: 64}},
		{gMatrix, "ROOM_MODELS", "", "Comma-separated models a room's moderators may choose with !ada set model, beside LLM_MODEL; empty = only LLM_MODEL.", false,
			listVal{p: &c.RoomModels, check: checkOneLine, desc: "list of model names"}},
		{gMatrix, "MEMBER_ANSWERS_PER_HOUR", "0", "Answers one member may get per room in an hour; 0 = unlimited.", false,
			intVal[int]{p: &c.MemberAnswersPerHour, min: 0, max: 100000}},
		{gMatrix, "ROOM_ANSWERS_PER_HOUR", "0", "Answers a room may get in an hour; 0 = unlimited.", false,
			intVal[int]{p: &c.RoomAnswersPerHour, min: 0, max: 100000}},
		{gMatrix, "MEMBER_TOKENS_PER_DAY", "0", "Model tokens (prompt and answer) one member may use per room in a day; 0 = unlimited.", false,
			intVal[int]{p: &c.MemberTokensPerDay, min: 0, max: 1000000000}},
		{gMatrix, "ROOM_TOKENS_PER_DAY", "0", "Model tokens (prompt and answer) a room may use in a day; 0 = unlimited.", false,
			intVal[int]{p: &c.RoomTokensPerDay, min: 0, max: 1000000000}},
		{gMatrix, "QUOTA_EXEMPT_MODERATORS", "false", "Room moderators (power level 50 or more) are not held to the quotas.", false,
			boolVal{&c.QuotaExemptModerators}},
		{gMatrix, "MEMBER_PENDING_REMINDERS", "20", "Reminders one member may have waiting in a room (`!ada remind`); more are refused until one is posted or cancelled; 0 = reminders off.", false,
			intVal[int]{p: &c.MemberPendingReminders, min: 0, max: 10000}},
		{gMatrix, "ROOM_PENDING_REMINDERS", "100", "Reminders a room may have waiting, all members together; 0 = reminders off.", false,
			intVal[int]{p: &c.RoomPendingReminders, min: 0, max: 100000}},
		{gMatrix, "STREAM_EDITS", "off", "Show answers as they are written: post the first sentence, then edit the reply (m.replace) as the model goes on.", false,
			boolVal{&c.StreamEdits}},
		{gMatrix, "STREAM_EDIT_SECONDS", "1", "Least time between two edits of a streamed answer (decimals allowed).", false,
			floatVal{p: &c.StreamEditSeconds, min: 0.1, max: 60}},
		{gMatrix, "STREAM_MAX_EDITS", "30", "Most edits of one streamed answer, the final one included.", false,
			intVal[int]{p: &c.StreamMaxEdits, min: 2, max: 200}},
	}
}
