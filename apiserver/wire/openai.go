package wire

import (
	"encoding/json"
	"strings"

	"github.com/ada-chat/ada/core"
)

// OpenAI's chat completions protocol, as far as Ada speaks it
// (POST /v1/chat/completions, GET /v1/models).

// AdaModel is the model name that always means "Ada, with her configured
// LLM"; /v1/models lists it beside the LLM's own name.
const AdaModel = "ada"

// CompletionRequest is the body of POST /v1/chat/completions.
type CompletionRequest struct {
	Model               string              `json:"model"`
	Messages            []CompletionMessage `json:"messages"`
	Stream              bool                `json:"stream"`
	StreamOptions       *StreamOptions      `json:"stream_options"`
	Temperature         *float64            `json:"temperature"`
	TopP                *float64            `json:"top_p"`
	MaxTokens           *int                `json:"max_tokens"`
	MaxCompletionTokens *int                `json:"max_completion_tokens"`
	Stop                json.RawMessage     `json:"stop"`
	N                   *int                `json:"n"`
	User                string              `json:"user"`
	Tools               json.RawMessage     `json:"tools"`
	ToolChoice          json.RawMessage     `json:"tool_choice"`
}

// StreamOptions asks for a usage chunk at the end of a stream.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// CompletionMessage is one message: its content a string or an array of
// parts, of which Ada reads the text ones.
type CompletionMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// An assistant's calls of the client's tools, and the call a tool
	// message answers.
	ToolCalls  []core.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// text is the message's text: the string, or its text parts joined.
func (m CompletionMessage) text(i int) (string, error) {
	if present(m.Content) == nil {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return "", core.Errorf(core.KindInvalid, "messages[%d].content: must be a string or an array of content parts", i)
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// Limits of a completion request.
const (
	maxCompletionMessages = 1000
	maxStops              = 4
)

// ToCore makes the chat request: the last user message is the prompt; the
// system and developer messages are the client's instructions; the user and
// assistant messages before the prompt are the client's history; after it
// come the model's calls of the client's tools and their results, when the
// client answers them. user is the end user (a header of the front-end, or
// the body's user field), who acts as the memory entity.
func (b *CompletionRequest) ToCore(user string) (core.ChatRequest, error) {
	// The API offers every MCP tool (DECISIONS: all on the API).
	req := core.ChatRequest{Store: true, Entity: strings.TrimSpace(user), MCPTools: []string{core.AllTools}}
	switch {
	case strings.TrimSpace(b.Model) == "":
		return req, core.Errorf(core.KindInvalid, "model: is required (GET /v1/models lists them)")
	case len(b.Messages) == 0:
		return req, core.Errorf(core.KindInvalid, "messages: must hold at least one message")
	case len(b.Messages) > maxCompletionMessages:
		return req, core.Errorf(core.KindInvalid, "messages: must hold at most %d messages", maxCompletionMessages)
	case b.N != nil && *b.N != 1:
		return req, core.Errorf(core.KindInvalid, "n: Ada gives one answer; n must be 1")
	}
	if present(b.Tools) != nil && strings.TrimSpace(string(b.Tools)) != "[]" {
		req.Tools, req.ToolChoice = b.Tools, present(b.ToolChoice)
	}
	prompt := -1
	for i, m := range b.Messages {
		if m.Role == "user" {
			prompt = i
		}
	}
	if last := b.Messages[len(b.Messages)-1].Role; prompt < 0 || (last != "user" && last != "tool") {
		return req, core.Errorf(core.KindInvalid, "messages: the last message must be the user's, or a tool's result, got %q", Truncate(last, 20))
	}
	var instructions []string
	for i, m := range b.Messages {
		text, err := m.text(i)
		if err != nil {
			return req, err
		}
		after := i > prompt
		switch m.Role {
		case "system", "developer":
			if strings.TrimSpace(text) != "" {
				instructions = append(instructions, strings.TrimSpace(text))
			}
		case "user":
			if i == prompt {
				req.Prompt = text
			} else {
				req.History = append(req.History, core.Message{Role: "user", Content: text})
			}
		case "assistant":
			if after {
				req.ToolTurns = append(req.ToolTurns, core.Message{Role: "assistant", Content: text, ToolCalls: m.ToolCalls})
			} else {
				req.History = append(req.History, core.Message{Role: "assistant", Content: text})
			}
		case "tool", "function":
			// A result of the client's own tool: the model reads it when
			// it answers this prompt; older ones are done with.
			if after {
				req.ToolTurns = append(req.ToolTurns, core.Message{Role: "tool", Content: text, ToolCallID: m.ToolCallID})
			}
		default:
			return req, core.Errorf(core.KindInvalid, "messages[%d].role: must be system, developer, user, assistant or tool, got %q", i, Truncate(m.Role, 20))
		}
	}
	req.Instructions = strings.Join(instructions, "\n\n")
	o, err := b.options()
	if err != nil {
		return req, err
	}
	req.Options = o
	return req, nil
}

// present is raw, or nil for an absent or null field.
func present(raw json.RawMessage) json.RawMessage {
	if s := strings.TrimSpace(string(raw)); s == "" || s == "null" {
		return nil
	}
	return raw
}

func (b *CompletionRequest) options() (core.GenOptions, error) {
	o := core.GenOptions{Temperature: b.Temperature, TopP: b.TopP, MaxTokens: b.MaxCompletionTokens}
	if o.MaxTokens == nil {
		o.MaxTokens = b.MaxTokens
	}
	switch {
	case o.Temperature != nil && (*o.Temperature < 0 || *o.Temperature > 2):
		return o, core.Errorf(core.KindInvalid, "temperature: must be 0..2, got %g", *o.Temperature)
	case o.TopP != nil && (*o.TopP < 0 || *o.TopP > 1):
		return o, core.Errorf(core.KindInvalid, "top_p: must be 0..1, got %g", *o.TopP)
	case o.MaxTokens != nil && *o.MaxTokens < 1:
		return o, core.Errorf(core.KindInvalid, "max_tokens: must be at least 1, got %d", *o.MaxTokens)
	}
	if present(b.Stop) == nil {
		return o, nil
	}
	var one string
	if err := json.Unmarshal(b.Stop, &one); err == nil {
		o.Stop = []string{one}
		return o, nil
	}
	if err := json.Unmarshal(b.Stop, &o.Stop); err != nil || len(o.Stop) > maxStops {
		return o, core.Errorf(core.KindInvalid, "stop: must be a string or an array of at most %d strings", maxStops)
	}
	return o, nil
}

// Opening is what begins the conversation: its messages up to the first
// user message (instructions and that message), as role and text pairs.
// A front-end resends them unchanged with every request of the
// conversation, so core derives the conversation of a user from them
// (core.ConversationKey).
func (b *CompletionRequest) Opening() []string {
	var out []string
	for i, m := range b.Messages {
		text, _ := m.text(i)
		out = append(out, m.Role, text)
		if m.Role == "user" {
			break
		}
	}
	return out
}

// Completion is a whole answer (stream false).
type Completion struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"` // chat.completion
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []CompletionChoice `json:"choices"`
	Usage   CompletionUsage    `json:"usage"`
	// Ada tells which of her conversations the answer belongs to.
	Ada CompletionAda `json:"ada"`
}

// CompletionAda is Ada's addition to a completion.
type CompletionAda struct {
	ConversationID string `json:"conversation_id"`
}

// CompletionChoice is the one answer.
type CompletionChoice struct {
	Index        int               `json:"index"`
	Message      *CompletionOutput `json:"message,omitempty"`
	Delta        *CompletionOutput `json:"delta,omitempty"`
	FinishReason *string           `json:"finish_reason"`
	Logprobs     *struct{}         `json:"logprobs"`
}

// CompletionOutput is an answer's message, or a stream chunk's delta.
type CompletionOutput struct {
	Role      string           `json:"role,omitempty"`
	Content   *string          `json:"content,omitempty"`
	ToolCalls []CompletionCall `json:"tool_calls,omitempty"`
}

// CompletionCall is a call of a client's tool in an answer, or a piece of
// one in a stream chunk (Index tells which).
type CompletionCall struct {
	Index    *int               `json:"index,omitempty"`
	ID       string             `json:"id,omitempty"`
	Type     string             `json:"type,omitempty"`
	Function CompletionCallFunc `json:"function"`
}

// CompletionCallFunc is the function called, and (more of) its arguments.
type CompletionCallFunc struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// CallsOf is the wire form of an answer's tool calls.
func CallsOf(calls []core.ToolCall) []CompletionCall {
	out := make([]CompletionCall, len(calls))
	for i, c := range calls {
		out[i] = CompletionCall{ID: c.ID, Type: "function", Function: CompletionCallFunc{Name: c.Function.Name, Arguments: c.Function.Arguments}}
	}
	return out
}

// CompletionUsage counts tokens as the backend reported them.
type CompletionUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// UsageOf is the wire form of core's token counts.
func UsageOf(u core.Usage) CompletionUsage {
	return CompletionUsage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, TotalTokens: u.PromptTokens + u.CompletionTokens}
}

// CompletionChunk is one event of a stream.
type CompletionChunk struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"` // chat.completion.chunk
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []CompletionChoice `json:"choices"`
	Usage   *CompletionUsage   `json:"usage,omitempty"`
}

// Model is one entry of GET /v1/models.
type Model struct {
	ID      string `json:"id"`
	Object  string `json:"object"` // model
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// ModelList is the body of GET /v1/models.
type ModelList struct {
	Object string  `json:"object"` // list
	Data   []Model `json:"data"`
}

// OpenAIError is the error body of the OpenAI-compatible routes.
type OpenAIError struct {
	Error OpenAIErrorBody `json:"error"`
}

// OpenAIErrorBody is what OpenAI's clients read from an error.
type OpenAIErrorBody struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// OpenAIErrorFor is an error in OpenAI's shape: the message, a type from
// the status, and the field the message names, if any, as param.
func OpenAIErrorFor(status int, message string) OpenAIError {
	body := OpenAIErrorBody{Message: message, Type: openAIErrorType(status)}
	if field, _, ok := strings.Cut(message, ":"); ok && isFieldName(field) {
		body.Param = &field
	}
	return OpenAIError{Error: body}
}

func openAIErrorType(status int) string {
	switch {
	case status == 401:
		return "authentication_error"
	case status == 404:
		return "not_found_error"
	case status == 504:
		return "timeout"
	case status >= 500:
		return "server_error"
	default:
		return "invalid_request_error"
	}
}

// isFieldName reports whether s looks like a request field ("model",
// "messages[2].content"), as Ada's invalid-input messages begin with one.
func isFieldName(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '[' || r == ']') {
			return false
		}
	}
	return true
}
