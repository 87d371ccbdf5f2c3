package core

import (
	"context"
	"encoding/json"
	"time"
)

// Filter narrows a document query. Empty fields do not filter. Its meaning
// is Conds and Admits (filter.go): a new field is added there.
type Filter struct {
	Type           DocType
	Scopes         []string // any of these scopes
	ConversationID string
	RoomID         string
	AnyRoom        bool // only documents that came from a chat room
	Tag            string
	OlderThan      time.Time // only documents with a timestamp before this
	// AfterTurn and UpToTurn bound turn_index: after < index <= up to.
	AfterTurn, UpToTurn *int
	// TurnIndexes selects the turns of these indexes (any of them).
	TurnIndexes []int
	// Expired selects the memories whose expires_at is at or before it.
	Expired time.Time
	// Before selects the documents listed after this position in List's
	// order (newest first): a page cursor.
	Before *Position

	// The memory page's narrowing (BrowseMemories). List, Count and the
	// keyword and exact searches apply them in the store; the approximate
	// vector search may not (Cond.Narrowing), so BrowseMemories checks
	// every result again (Admits): a search that leaves them out returns
	// more, and the page still shows only what they admit.
	Source        string
	MinImportance int
	Since, Until  time.Time // Since <= timestamp < Until; zero: unbounded
	AnyEntity     bool      // only memories about an entity (scope entity:…)
	Visible       *Visibility
}

// Visibility is what one room member may see: documents told by or about
// UserID (user_id, subject_user_id, or entity), and those of Rooms.
type Visibility struct {
	UserID string
	Rooms  []string
}

// Position is a document's place in List's order: its timestamp, then its id.
type Position struct {
	Time time.Time
	ID   string
}

// VectorQuery asks for the K nearest documents to Vector within Filter.
type VectorQuery struct {
	Filter
	Vector []float32
	K      int
}

// KeywordQuery asks for the K best keyword (BM25) matches of Text's words
// within Filter.
type KeywordQuery struct {
	Filter
	Text string
	K    int
}

// KeywordHit is a document found by its words. BM25 is positive; higher is
// a better match.
type KeywordHit struct {
	Document
	BM25 float64
}

// Hit is a document found by similarity. Distance is the cosine distance.
type Hit struct {
	Document
	Distance float64
}

// Conversation is one row of the recent-conversations listing.
type Conversation struct {
	ID        string    `json:"id"`
	Preview   string    `json:"preview"`
	Timestamp time.Time `json:"timestamp"`
	TurnCount int       `json:"turn_count"`
	// RoomID is the Matrix room of a room's conversation, where it is
	// known (RoomConversations); the memory page titles it by the room.
	RoomID string `json:"room_id,omitempty"`
}

// MarshalJSON writes the timestamp as every time in Ada's answers is
// written: microseconds and an explicit offset (isoTime).
func (c Conversation) MarshalJSON() ([]byte, error) {
	type plain Conversation
	return json.Marshal(struct {
		plain
		Timestamp string `json:"timestamp"`
	}{plain(c), isoTime(c.Timestamp)})
}

// StoreStatus is what health shows of the store, without counts: a health
// probe is frequent, and Chroma cannot count by metadata cheaply.
type StoreStatus struct {
	Backend string
	Version string
	// Heartbeat is a remote store's clock when it last answered; 0 for
	// the embedded store.
	Heartbeat int64
	// Index is the state of the store's in-memory vector index:
	// IndexLoading for a few seconds after a start at a million documents
	// (vector searches scan the file meanwhile: the same answers, slower),
	// then IndexReady; "" for a store without one (Chroma).
	Index string
}

// The states of StoreStatus.Index.
const (
	IndexLoading = "loading"
	IndexReady   = "ready"
)

// StoreStats describes the store for the debug endpoint and the metrics.
type StoreStats struct {
	Backend string `json:"backend"`
	Version string `json:"version"`
	Path    string `json:"path,omitempty"`
	// Heartbeat is a remote store's clock (Chroma's nanosecond heartbeat)
	// when it last answered; 0 for the embedded store.
	Heartbeat  int64           `json:"heartbeat,omitempty"`
	Embedder   string          `json:"embedder"`
	Dimensions int             `json:"dimensions"`
	Total      int             `json:"total_documents"`
	ByType     map[DocType]int `json:"by_type"`
}

// Store is the vector store of the "conversations" collection: everything
// a backend (SQLite with sqlite-vec, Chroma) must provide, by capability
// (store.go). Writes are atomic on SQLite; a backend without transactions
// orders them so that a failure half-way leaves nothing a reader misreads
// (docs/operators.md, the Chroma section).
type Store interface {
	DocumentStore
	VectorSearcher
	KeywordSearcher
	HistoryStore
	ConversationLister
	StoreInfo
	Counter
	ForgottenLister
}

// Embedder turns texts into Dim-dimensional, L2-normalised vectors.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Name identifies backend and model, e.g. "hash:v1" or "ollama:nomic-embed-text".
	Name() string
}

// EmbedEach embeds texts with emb and checks that it gave one vector a
// text, as the commands that embed stored documents again need (reindex,
// import).
func EmbedEach(ctx context.Context, emb Embedder, texts []string) ([][]float32, error) {
	vecs, err := emb.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = Errorf(KindUpstream, "embedder %s returned %d vectors for %d texts", emb.Name(), len(vecs), len(texts))
	}
	return vecs, err
}

// Message is one entry of the conversation sent to the LLM.
type Message struct {
	Role    string `json:"role"` // system, user, assistant or tool
	Content string `json:"content"`
	// ToolCalls are an assistant message's calls of the client's own tools
	// (the OpenAI-compatible endpoint's function calling).
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID names the call a tool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// ToolCall is a call of a client's tool, in OpenAI's shape: Arguments is a
// JSON object as a string.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function ToolFunction `json:"function"`
}

// ToolFunction is the function a tool call calls, and its arguments.
type ToolFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// LLMRequest is one generation request.
type LLMRequest struct {
	Messages []Message
	// Think asks for reasoning output. It is always sent explicitly, because
	// thinking models think by default.
	Think bool
	// Format, when set, is a JSON Schema the answer must follow (structured
	// output): Ollama's "format", OpenAI's response_format json_schema. Used
	// by background calls such as memory extraction, never by chat.
	Format json.RawMessage
	// Options are the client's sampling settings; unset ones are the
	// backend's defaults.
	Options GenOptions
	// Tools are the client's own tools the model may call (OpenAI's
	// "tools" array, passed as given), and ToolChoice its tool_choice.
	Tools      json.RawMessage
	ToolChoice json.RawMessage
	// Model names the model for this call (a room's choice, issue 24);
	// empty means the client's configured model.
	Model string
}

// GenOptions are sampling settings a client may choose (the OpenAI-compatible
// endpoint passes its request's on). Nil or empty means the backend's default.
type GenOptions struct {
	Temperature *float64
	TopP        *float64
	MaxTokens   *int
	Stop        []string
}

// Usage counts the tokens of a model call, as the backend reports them.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Add sums two calls' counts (an answer with specialists takes several).
func (u Usage) Add(o Usage) Usage {
	return Usage{PromptTokens: u.PromptTokens + o.PromptTokens, CompletionTokens: u.CompletionTokens + o.CompletionTokens}
}

// LLMEventKind tells thinking from answer text.
type LLMEventKind int

const (
	LLMToken LLMEventKind = iota
	LLMThinking
	// LLMUsage carries the call's token counts, once, at its end, when the
	// backend reports them.
	LLMUsage
	// LLMToolCall carries a piece of a call of a client's tool: the first
	// piece of a call has its ID and name, the next ones more of its
	// arguments, all with the call's Index.
	LLMToolCall
)

// LLMEvent is one streamed piece of the model's output.
type LLMEvent struct {
	Kind     LLMEventKind
	Text     string
	Usage    Usage          // LLMUsage only
	ToolCall *ToolCallDelta // LLMToolCall only
}

// ToolCallDelta is a piece of a tool call as it streams.
type ToolCallDelta struct {
	Index     int
	ID, Name  string // in the call's first piece
	Arguments string // more of the arguments
}

// LLM streams a chat completion. Chat returns when the model is done, when
// emit returns an error (which Chat returns unchanged), or when ctx ends.
// Errors for an unreachable, failing or malformed backend are KindUpstream and
// name the backend and address, never a secret.
type LLM interface {
	Chat(ctx context.Context, req LLMRequest, emit func(LLMEvent) error) error
	// Backend and Model name the backend ("ollama", "openai") and model.
	Backend() string
	Model() string
	// Ping checks that the backend answers and has the configured model.
	Ping(ctx context.Context) error
}

// Priority orders specialist text in the prompt: HIGH comes first.
type Priority string

const (
	PriorityHigh   Priority = "HIGH"
	PriorityMedium Priority = "MEDIUM"
	PriorityLow    Priority = "LOW"
)

// SpecialistInfo describes a specialist for the catalogue and the prompt.
type SpecialistInfo struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Icon         string          `json:"icon"`
	Version      string          `json:"version"`
	Priority     Priority        `json:"priority"`
	Enabled      bool            `json:"enabled"`
	Tags         []string        `json:"tags"`
	InputSchema  json.RawMessage `json:"input_schema"`
	OutputSchema json.RawMessage `json:"output_schema"`
	// Capability is the FAQ text synchronised for this specialist.
	Capability string `json:"-"`
}

// SpecialistCall carries what a specialist run may need beyond its arguments.
type SpecialistCall struct {
	Args json.RawMessage
	// OCRContext is the chat request's ocr_context, if any.
	OCRContext *OCRResult
	// RoomID, Speaker and EventID are the chat request's: the chat room,
	// the member who asked and the event they asked in. Specialists tagged
	// TagRoom act on that room (a reminder); other chats have none.
	RoomID  string
	Speaker *Speaker
	EventID string
}

// Specialist is a plugin the LLM calls with SPECIALIST_REQUEST[name:{json}].
// Run gets validated arguments and a context carrying the timeout; its result
// text is given to the model.
type Specialist interface {
	Info() SpecialistInfo
	Run(ctx context.Context, call SpecialistCall) (string, error)
}

// OCRResult is the output of text extraction from an image.
type OCRResult struct {
	Text        string  `json:"text"`
	CharCount   int     `json:"char_count"`
	LineCount   int     `json:"line_count"`
	Confidence  float64 `json:"confidence"`
	ImageFormat string  `json:"image_format"`
	ImageSize   [2]int  `json:"image_size"`
}
