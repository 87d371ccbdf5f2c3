package ollama

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/internal/remote"
)

// maxLine bounds one NDJSON line. Ollama sends a few tokens per line; the
// final line carries statistics and, for /api/generate only, a context array.
const maxLine = 1 << 20

// chatRequest is the body of POST /api/chat.
type chatRequest struct {
	Model    string          `json:"model"`
	Messages []chatMessage   `json:"messages"`
	Tools    json.RawMessage `json:"tools,omitempty"`
	Stream   bool            `json:"stream"`
	// Think has no omitempty: thinking models think unless told not to, so
	// false must be on the wire.
	Think bool `json:"think"`
	// Format is a JSON Schema Ollama constrains the answer to. Omitted when
	// unset, so that plain chat requests stay as they were.
	Format json.RawMessage `json:"format,omitempty"`
	// Options are the client's sampling settings; omitted unless chosen.
	Options *chatOptions `json:"options,omitempty"`
}

// chatOptions are Ollama's names for the sampling settings.
type chatOptions struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	NumPredict  *int     `json:"num_predict,omitempty"`
	Stop        []string `json:"stop,omitempty"`
}

func optionsOf(o core.GenOptions) *chatOptions {
	if o.Temperature == nil && o.TopP == nil && o.MaxTokens == nil && len(o.Stop) == 0 {
		return nil
	}
	return &chatOptions{Temperature: o.Temperature, TopP: o.TopP, NumPredict: o.MaxTokens, Stop: o.Stop}
}

// chatMessage is a message in Ollama's shape: a tool call's arguments are
// an object, not a string, and a tool's result names its tool.
type chatMessage struct {
	Role      string         `json:"role"`
	Content   string         `json:"content"`
	ToolCalls []chatToolCall `json:"tool_calls,omitempty"`
	ToolName  string         `json:"tool_name,omitempty"`
}

type chatToolCall struct {
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// messagesOf turns core's messages (OpenAI's shape) into Ollama's.
func messagesOf(msgs []core.Message) []chatMessage {
	out := make([]chatMessage, len(msgs))
	names := map[string]string{} // tool call id -> tool name
	for i, m := range msgs {
		out[i] = chatMessage{Role: m.Role, Content: m.Content, ToolName: names[m.ToolCallID]}
		for _, tc := range m.ToolCalls {
			var c chatToolCall
			c.Function.Name = tc.Function.Name
			c.Function.Arguments = json.RawMessage(tc.Function.Arguments)
			if !json.Valid(c.Function.Arguments) {
				c.Function.Arguments = json.RawMessage("{}")
			}
			out[i].ToolCalls = append(out[i].ToolCalls, c)
			names[tc.ID] = tc.Function.Name
		}
	}
	return out
}

// chatChunk is one NDJSON line of the reply. A failure after the status line
// was sent arrives as a line with only "error".
type chatChunk struct {
	Message struct {
		Content   string         `json:"content"`
		Thinking  string         `json:"thinking"`
		ToolCalls []chatToolCall `json:"tool_calls"`
	} `json:"message"`
	Done  bool   `json:"done"`
	Error string `json:"error"`
	// The token counts, in the last line.
	PromptEvalCount int `json:"prompt_eval_count"`
	EvalCount       int `json:"eval_count"`
}

// Chat streams a reply: message.thinking becomes LLMThinking events and
// message.content LLMToken events, in the order received. Whatever thinking
// the server sends is passed on; whether to show it is core's decision.
func (c *Client) Chat(ctx context.Context, req core.LLMRequest, emit func(core.LLMEvent) error) error {
	// Cancelling on return makes sure the transport abandons the request
	// when we stop early, whatever the state of the body.
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	body := chatRequest{Model: cmp.Or(req.Model, c.model), Messages: messagesOf(req.Messages), Stream: true, Think: req.Think, Format: req.Format,
		Options: optionsOf(req.Options), Tools: req.Tools}
	resp, err := c.ep.Do(callCtx, http.MethodPost, "/api/chat", body, "application/x-ndjson")
	if err != nil {
		// Ollama refuses think with 400 `"<model>" does not support thinking`
		// before it streams anything; core then asks again without.
		if req.Think && strings.Contains(err.Error(), "does not support thinking") {
			return fmt.Errorf("%w: %w", core.ErrThinkingUnsupported, err)
		}
		return err
	}
	defer resp.Body.Close()

	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	calls := 0
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return c.ep.Fail(ctx, err)
		}
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var chunk chatChunk
		if err := json.Unmarshal(line, &chunk); err != nil {
			return c.ep.Malformed(err, line)
		}
		if chunk.Error != "" {
			return c.ep.Remote(chunk.Error)
		}
		if err := send(emit, core.LLMThinking, chunk.Message.Thinking); err != nil {
			return err
		}
		if err := send(emit, core.LLMToken, chunk.Message.Content); err != nil {
			return err
		}
		// Ollama sends each tool call whole; it gets an id here, as
		// OpenAI's clients need one to answer it.
		for _, tc := range chunk.Message.ToolCalls {
			d := &core.ToolCallDelta{Index: calls, ID: fmt.Sprintf("call_%d", calls), Name: tc.Function.Name, Arguments: string(tc.Function.Arguments)}
			calls++
			if err := emit(core.LLMEvent{Kind: core.LLMToolCall, ToolCall: d}); err != nil {
				return err
			}
		}
		if chunk.Done {
			remote.Finish(resp.Body)
			return emit(core.LLMEvent{Kind: core.LLMUsage, Usage: core.Usage{PromptTokens: chunk.PromptEvalCount, CompletionTokens: chunk.EvalCount}})
		}
	}
	if err := sc.Err(); err != nil {
		return c.ep.Fail(ctx, err)
	}
	return c.ep.Truncated()
}

// send emits non-empty text. emit's error is returned as is, so that Chat
// hands it back unchanged.
func send(emit func(core.LLMEvent) error, kind core.LLMEventKind, text string) error {
	if text == "" {
		return nil
	}
	return emit(core.LLMEvent{Kind: kind, Text: text})
}
