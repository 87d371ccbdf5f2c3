package wire

// Health is the body of GET /v1/healthz (DECISIONS.md).
type Health struct {
	OK      bool   `json:"ok"`
	Service string `json:"service"`
	// Python (the Go runtime; the key is kept for compatibility) and Config
	// are shown with the API key only: they help an attacker more than a
	// load balancer.
	Python  string         `json:"python,omitempty"`
	Config  map[string]any `json:"config,omitempty"`
	Persona struct {
		Loaded bool `json:"loaded"`
	} `json:"persona"`
	// Store is the key "chroma", kept for compatibility: the vector store,
	// whatever its backend.
	Store StoreStatus `json:"chroma"`
	LLM   LLMStatus   `json:"llm"`
	// Matrix is there when the answering process runs the bridge.
	Matrix *MatrixStatus `json:"matrix,omitempty"`
	// MCP are the servers of MCP_SERVERS_FILE, when there are any.
	MCP []MCPServerStatus `json:"mcp,omitempty"`
}

// MCPServerStatus is one MCP server whose tools Ada calls (not critical).
type MCPServerStatus struct {
	Name      string `json:"name"`
	Transport string `json:"transport"` // stdio or http
	// OK is false while the server is down or restarting: its tools fail.
	OK       bool `json:"ok"`
	Tools    int  `json:"tools"`
	Restarts int  `json:"restarts"`
	// Error is why it is down; shown with the API key only (it may name
	// paths); never a value of the entry's env or headers.
	Error *string `json:"error,omitempty"`
}

// StoreStatus is the "chroma" object of the health body.
type StoreStatus struct {
	OK      bool   `json:"ok"`
	Backend string `json:"backend"`
	Version string `json:"version"`
	// Heartbeat is a remote store's clock when it last answered (Chroma's
	// nanosecond heartbeat); absent for the embedded store.
	Heartbeat int64 `json:"heartbeat,omitempty"`
	// Index is the embedded store's in-memory vector index: "loading"
	// after a start, "ready" once loaded; left out for Chroma.
	Index string  `json:"index,omitempty"`
	Error *string `json:"error"`
}

// LLMStatus is the "llm" object of the health body.
type LLMStatus struct {
	OK      bool    `json:"ok"`
	Backend string  `json:"backend"`
	Model   string  `json:"model"`
	Error   *string `json:"error"`
}

// MatrixStatus is the "matrix" object: the Matrix bridge of `ada up`.
type MatrixStatus struct {
	OK    bool   `json:"ok"`
	State string `json:"state"` // connecting, running, stopping, stopped
	// Error says why the bridge is not running (null when it is).
	Error *string `json:"error"`
}

// Readiness is the body of GET /v1/readyz: ready when every configured
// component works; failing names each one that does not, with its reason.
type Readiness struct {
	Ready   bool              `json:"ready"`
	Failing map[string]string `json:"failing"`
}
