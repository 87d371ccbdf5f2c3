package llmtest

import (
	"net/http"
	"time"

	"github.com/ada-chat/ada/core"
)

// Reply scripts the answer to one chat request. The zero value is an empty
// but successful reply. Thinking chunks are sent first, then Tokens, then the
// protocol's end marker, unless an option below replaces the ending.
type Reply struct {
	// Thinking pieces are sent as Ollama message.thinking or as OpenAI
	// reasoning deltas. They are sent whatever the request's think flag says,
	// so tests control exactly what reaches the client.
	Thinking []string
	// Tokens are the answer text, one chunk each.
	Tokens []string
	// ToolCalls follow the tokens, one chunk each: calls of the client's
	// tools; the reply then finishes with "tool_calls".
	ToolCalls []ToolCallReply
	// ReasoningField names the OpenAI delta field for Thinking:
	// "reasoning_content" (the default) or "reasoning".
	ReasoningField string

	// Status, if 400 or more, answers with that HTTP status and an error
	// body in the protocol's shape carrying Error, instead of a stream.
	Status int
	// Error is the message of a Status or StreamError answer.
	Error string
	// StreamError, if set, ends the stream with an in-band error event
	// ({"error": ...}) instead of the end marker.
	StreamError bool

	// FirstDelay is waited before the first chunk, ChunkDelay before each
	// later one. Instant mode ignores both.
	FirstDelay time.Duration
	ChunkDelay time.Duration

	// Hold, if not nil, is waited on (until closed) before chunk number
	// HoldAfter is sent; HoldAfter >= the number of chunks waits before the
	// end. With HoldAfter: 1, a test can see the first token arrive while the
	// reply is provably unfinished.
	Hold      <-chan struct{}
	HoldAfter int
	// Hang, after the chunks, waits until the client goes away (or the server
	// closes) and never sends the end marker.
	Hang bool
	// Malformed ends the stream with a chunk that is not valid JSON.
	Malformed bool
	// Abort cuts the connection after the chunks, without an end marker and
	// without a clean end of the HTTP body.
	Abort bool
}

// ToolCallReply is a scripted call of a tool; Arguments is a JSON object.
type ToolCallReply struct {
	Name      string
	Arguments string
}

// piece is one chunk of streamed text, or a tool call (kind LLMToolCall,
// text the arguments).
type piece struct {
	kind  core.LLMEventKind
	text  string
	name  string // of the tool called
	index int    // of the tool call
}

func (r Reply) pieces() []piece {
	out := make([]piece, 0, len(r.Thinking)+len(r.Tokens))
	for _, t := range r.Thinking {
		out = append(out, piece{kind: core.LLMThinking, text: t})
	}
	for _, t := range r.Tokens {
		out = append(out, piece{kind: core.LLMToken, text: t})
	}
	for i, c := range r.ToolCalls {
		out = append(out, piece{kind: core.LLMToolCall, text: c.Arguments, name: c.Name, index: i})
	}
	return out
}

// finish is how the reply ends: "tool_calls" when it calls tools.
func (r Reply) finish() string {
	if len(r.ToolCalls) > 0 {
		return "tool_calls"
	}
	return "stop"
}

func (r Reply) errorText() string {
	if r.Error != "" {
		return r.Error
	}
	return "llmtest: scripted failure"
}

// Embed configures the embedding endpoints.
type Embed struct {
	// Dim is the vector length; 0 means core.Dim.
	Dim int
	// Status, if 400 or more, makes every embedding request fail with it.
	Status int
	// Hold, if not nil, keeps every embedding request waiting until it is
	// closed (or the client goes away): work that embeds in a room's job
	// holds the room, deterministically.
	Hold <-chan struct{}
}

// held waits for the embedding config's Hold, reporting false when the
// client went away first.
func (e Embed) held(r *http.Request) bool {
	if e.Hold == nil {
		return true
	}
	select {
	case <-e.Hold:
		return true
	case <-r.Context().Done():
		return false
	}
}
