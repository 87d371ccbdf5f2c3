package core

import (
	"encoding/json"
	"time"
)

// ChatRequest is one user turn. The HTTP adapter and the bridge fill it.
type ChatRequest struct {
	Prompt          string
	ConversationID  string // empty: a new conv-<uuid> is assigned
	IncludeThinking bool
	Entity          string
	SaveMemory      bool
	MemoryText      string
	// MemoryImportance is 1..5; nil means the default, 3.
	MemoryImportance *int
	// TurnsK, FAQK, MemoryK override the RAG_*_TOP_K settings; 0 turns the
	// section off; nil means the setting.
	TurnsK, FAQK, MemoryK *int
	// RecallK overrides RAG_RECALL_TOP_K: earlier turns and summaries of the
	// conversation recalled by relevance; 0 turns recall off.
	RecallK *int
	// AutoMemory false turns automatic memories off for this request; nil
	// means the setting (RAG_AUTO_MEMORY).
	AutoMemory *bool
	// UserTimestamp is when the user wrote the prompt; zero means now.
	UserTimestamp time.Time
	// Location is the time zone the prompt was written in (a room's): the
	// times it mentions ("yesterday") are its days. Nil means UTC.
	Location *time.Location
	// Store false writes nothing about this turn: no turns, summary or memory.
	Store bool
	// OCRContext is text read from an image the user sent.
	OCRContext *OCRResult
	// ContextMessages are recent chat-room messages given as context (the
	// bridge's MAX_CONTEXT_MESSAGES), oldest first.
	ContextMessages []ContextMessage
	// ReplyChain is the message the prompt replies to and the messages that
	// one replies to in turn, oldest first (at most MaxReplyChain): the
	// bridge fetches them from the homeserver, so they may be older than
	// ContextMessages or from before Ada joined. used_context lists them.
	ReplyChain []ContextMessage
	// RoomID marks every document this turn writes with its Matrix room, so
	// privacy mode and retention can find them.
	RoomID string
	// EventID is the chat-room event the prompt comes from (the bridge sets
	// it), for the specialists that act on the room (TagRoom): a reminder
	// replies to it.
	EventID string
	// Speaker is the room member who wrote the prompt (the bridge sets it):
	// the model is told who is asking, the user turn records them, and
	// automatic memories name them instead of "the user".
	Speaker *Speaker
	// Members are the room's current members (the bridge sets them): a
	// fact is about a member only when exactly one of them goes by the
	// name the model gave (automemory_subject.go). Nil: the speaker and
	// the context messages' senders.
	Members Roster
	// Instructions are the client's own instructions (an OpenAI client's
	// system message): the prompt carries them beside the persona, never
	// instead of it.
	Instructions string
	// Options are the client's sampling settings, passed to the model.
	Options GenOptions
	// Model names the model that answers (a room's choice among the
	// operator's ROOM_MODELS, checked by the bridge); empty means LLM_MODEL.
	// Background calls (summaries, extraction) always use LLM_MODEL.
	Model string
	// Tools are the client's own tools the model may call (OpenAI's "tools"
	// array, as given), ToolChoice its tool_choice. When the model calls
	// them, the answer ends with the calls and nothing is stored: the
	// client runs them and asks again with their results.
	Tools      json.RawMessage
	ToolChoice json.RawMessage
	// MCPTools are the MCP servers' tools (specialists tagged TagMCP) this
	// chat may offer the model: entries name a tool ("server.tool"), a
	// server, or AllTools. Empty offers none, so that a request built
	// without it (a room's) never reaches a tool by default; the API sets
	// AllTools unless its body lists some.
	MCPTools []string
	// ToolTurns follow the prompt: the model's earlier calls of the
	// client's tools in this exchange and their results.
	ToolTurns []Message
	// History is the conversation so far as the client holds it (an OpenAI
	// client resends it with every request), oldest first. The prompt
	// carries it only while Ada has stored no turn of the conversation:
	// once it has, its own turns are the history.
	History []Message
	// minted says ConversationID was assigned by this chat (the request
	// named none): the conversation holds nothing yet, and its recent
	// window is not read.
	minted bool
}

// Speaker is a chat-room member as the model and the memories name them.
type Speaker struct {
	Name   string `json:"name"`
	UserID string `json:"user_id"`
}

// ContextMessage is one chat-room message given as context.
type ContextMessage struct {
	Sender string `json:"sender"`
	// UserID is the sender's Matrix user id, when known: a fact about the
	// sender is then stored with it as its subject.
	UserID    string    `json:"user_id,omitempty"`
	Text      string    `json:"text"`
	Timestamp time.Time `json:"timestamp,omitzero"`
}

// UsedContext lists what retrieval put into the prompt.
type UsedContext struct {
	Persona   PersonaRef    `json:"persona"`
	FAQs      []ContextItem `json:"faqs"`
	Turns     []ContextItem `json:"turns"`
	Memories  []ContextItem `json:"memories"`
	Summaries []ContextItem `json:"summaries"`
	Entity    *string       `json:"entity"`
	// ReplyChain lists the chat-room messages the question replies to
	// (ChatRequest.ReplyChain), reason "reply_chain"; absent without one.
	ReplyChain []ContextItem `json:"reply_chain,omitempty"`
}

// PersonaRef tells whether and which persona was used.
type PersonaRef struct {
	Included  bool    `json:"included"`
	Version   *string `json:"version"`
	Timestamp *string `json:"timestamp"`
}

// ContextItem is one retrieved document as reported to clients.
type ContextItem struct {
	ID         string   `json:"id"`
	Text       string   `json:"text"`
	Role       string   `json:"role,omitempty"`      // turns
	Timestamp  string   `json:"timestamp,omitempty"` // turns, summaries
	Topic      string   `json:"topic,omitempty"`     // faqs
	Importance int      `json:"importance,omitempty"`
	Scope      string   `json:"scope,omitempty"`
	Score      *float64 `json:"score,omitempty"`
	Similarity *float64 `json:"similarity,omitempty"`
	// TurnRange is set for summaries.
	TurnRange string `json:"turn_range,omitempty"`
	// Reason tells turns and summaries of the recent window ("recent") from
	// those recalled by relevance ("recalled") and the turns next to a
	// recalled turn ("neighbour").
	Reason string `json:"reason,omitempty"`
	// Explain says why a searched item was chosen (memories, FAQs, recalled
	// turns and summaries).
	Explain *Explanation `json:"explain,omitempty"`
}

// Reasons a turn or summary is in the context.
const (
	ReasonRecent    = "recent"
	ReasonRecalled  = "recalled"
	ReasonNeighbour = "neighbour"
	// ReasonReplyChain marks a chat-room message the question replies to.
	ReasonReplyChain = "reply_chain"
)

// ChatResult is the complete answer; the JSON chat response and the done
// event carry the same fields.
type ChatResult struct {
	Response           string  `json:"response"`
	Thinking           *string `json:"thinking"`
	ConversationID     string  `json:"conversation_id"`
	UserTimestamp      string  `json:"user_timestamp"`
	AssistantTimestamp string  `json:"assistant_timestamp"`
	// RequestID is the API request's id; the HTTP adapter sets it.
	RequestID   string      `json:"request_id"`
	UsedContext UsedContext `json:"used_context"`
	// Note tells the client that Ada answered otherwise than asked, e.g.
	// without thinking because the model cannot think.
	Note string `json:"note,omitempty"`
	// TurnIDs are the stored user and assistant turns, in that order (empty
	// when nothing was stored), so that a client can delete them later: the
	// bridge does when a member redacts the message.
	TurnIDs []string `json:"turn_ids,omitempty"`
	// MemoryID is the memory saved after the turn, if any.
	MemoryID string `json:"-"`
	// Usage sums the token counts of the answer's model calls, as far as
	// the backend reports them (the OpenAI-compatible endpoint's "usage").
	Usage Usage `json:"usage,omitzero"`
	// ToolCalls are the model's calls of the client's tools; the answer
	// then ends there, and FinishReason is "tool_calls".
	ToolCalls    []ToolCall `json:"-"`
	FinishReason string     `json:"-"`
}

// EventType is the closed set of stream events.
type EventType string

const (
	EventThinking         EventType = "thinking"
	EventToken            EventType = "token"
	EventSpecialistResult EventType = "specialist_result"
	EventDone             EventType = "done"
	EventError            EventType = "error"
	// EventToolCall is a piece of a call of the client's tools (only with
	// ChatRequest.Tools).
	EventToolCall EventType = "tool_call"
	// EventSpecialistCall says that a specialist starts to run (Specialist
	// names it), so that a client can show the pause ("searching the
	// web…"). In-process only: the SSE stream does not carry it, its
	// specialist_result follows.
	EventSpecialistCall EventType = "specialist_call"
)

// Event is one stream event. Which fields are set depends on Type:
// thinking/token: Content; specialist_result: Specialist, OK, Content;
// done: Done; error: Error (client-safe) and Kind. Its wire shape is
// apiserver/wire's.
type Event struct {
	Type       EventType
	ToolCall   *ToolCallDelta
	Content    string
	Specialist string
	OK         bool
	Done       *ChatResult
	Error      string
	Kind       ErrorKind
}
