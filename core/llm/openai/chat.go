package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/internal/remote"
)

// chatRequest is the body of POST /v1/chat/completions. LLMRequest.Think has
// no standard field here: OpenAI rejects unknown parameters, and servers that
// do reason (DeepSeek-R1 on vLLM, llama.cpp with --reasoning-format) decide
// by model or server flag. Reasoning that arrives is passed on either way.
type chatRequest struct {
	Model    string         `json:"model"`
	Messages []core.Message `json:"messages"`
	Stream   bool           `json:"stream"`
	// ResponseFormat is set only for structured output. Nil keeps it off the
	// wire, so plain chat also works on servers that lack response_format.
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
	// The client's sampling settings; absent unless it chose them.
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	MaxTokens   *int     `json:"max_tokens,omitempty"`
	Stop        []string `json:"stop,omitempty"`
	// The client's own tools, as it gave them.
	Tools      json.RawMessage `json:"tools,omitempty"`
	ToolChoice json.RawMessage `json:"tool_choice,omitempty"`
}

// responseFormat asks for a JSON Schema answer. Strict makes OpenAI enforce
// the schema rather than treat it as a hint; in return OpenAI accepts only
// schemas that list every property as required and set
// additionalProperties to false.
type responseFormat struct {
	Type       string     `json:"type"` // always "json_schema"
	JSONSchema jsonSchema `json:"json_schema"`
}

type jsonSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// schemaName is the json_schema name OpenAI requires. It is only a label;
// one fixed name keeps it stable whatever the caller.
const schemaName = "ada_output"

// chatChunk is one "data:" event. Servers differ on the reasoning field:
// llama.cpp, DeepSeek and older vLLM send reasoning_content, newer vLLM and
// OpenRouter send reasoning. Some send an {"error": ...} event mid-stream.
type chatChunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
			ToolCalls        []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Error json.RawMessage `json:"error"`
	// Usage comes in the last chunk from servers that report it in a
	// stream (llama.cpp; OpenAI with stream_options, which Ada does not
	// send, since some servers refuse fields they do not know).
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

var doneMarker = []byte("[DONE]")

// Chat streams a reply: reasoning deltas become LLMThinking events and
// content deltas LLMToken events, in the order received.
func (c *Client) Chat(ctx context.Context, req core.LLMRequest, emit func(core.LLMEvent) error) error {
	// Cancelling on return makes sure the transport abandons the request
	// when we stop early, whatever the state of the body.
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	o := req.Options
	body := chatRequest{Model: cmp.Or(req.Model, c.model), Messages: req.Messages, Stream: true,
		Temperature: o.Temperature, TopP: o.TopP, MaxTokens: o.MaxTokens, Stop: o.Stop,
		Tools: req.Tools, ToolChoice: req.ToolChoice}
	if len(req.Format) > 0 {
		body.ResponseFormat = &responseFormat{
			Type:       "json_schema",
			JSONSchema: jsonSchema{Name: schemaName, Schema: req.Format, Strict: true},
		}
	}
	resp, err := c.ep.Do(callCtx, http.MethodPost, c.prefix+"/chat/completions", body, "text/event-stream")
	if err != nil {
		return err
	}
	defer resp.Body.Close()

	events := newSSEReader(resp.Body)
	finished := false // a finish_reason was seen; only [DONE] is still due
	for {
		data, err := events.Next()
		if errors.Is(err, io.EOF) {
			if finished {
				return nil
			}
			return c.ep.Truncated()
		}
		if err != nil {
			return c.ep.Fail(ctx, err)
		}
		if err := ctx.Err(); err != nil {
			return c.ep.Fail(ctx, err)
		}
		if bytes.Equal(bytes.TrimSpace(data), doneMarker) {
			remote.Finish(resp.Body)
			return nil
		}
		var chunk chatChunk
		if err := json.Unmarshal(data, &chunk); err != nil {
			return c.ep.Malformed(err, data)
		}
		if len(chunk.Error) > 0 && string(chunk.Error) != "null" {
			return c.ep.Remote(errorMessage(chunk.Error))
		}
		done, err := emitChoice(chunk, emit)
		if err != nil {
			return err
		}
		if u := chunk.Usage; u != nil {
			if err := emit(core.LLMEvent{Kind: core.LLMUsage, Usage: core.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}}); err != nil {
				return err
			}
		}
		finished = finished || done
	}
}

// emitChoice emits the first choice's reasoning, then its content. It
// reports whether the choice carries a finish_reason. emit's error is
// returned as is.
func emitChoice(chunk chatChunk, emit func(core.LLMEvent) error) (bool, error) {
	for _, ch := range chunk.Choices {
		if ch.Index != 0 {
			continue // Ada never asks for n > 1
		}
		thinking := ch.Delta.ReasoningContent
		if thinking == "" {
			thinking = ch.Delta.Reasoning // whichever one the server uses, never both
		}
		if thinking != "" {
			if err := emit(core.LLMEvent{Kind: core.LLMThinking, Text: thinking}); err != nil {
				return false, err
			}
		}
		if ch.Delta.Content != "" {
			if err := emit(core.LLMEvent{Kind: core.LLMToken, Text: ch.Delta.Content}); err != nil {
				return false, err
			}
		}
		for _, tc := range ch.Delta.ToolCalls {
			d := &core.ToolCallDelta{Index: tc.Index, ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
			if err := emit(core.LLMEvent{Kind: core.LLMToolCall, ToolCall: d}); err != nil {
				return false, err
			}
		}
		return ch.FinishReason != nil && *ch.FinishReason != "", nil
	}
	return false, nil
}

// errorMessage reads {"message": ...} or a bare string.
func errorMessage(raw json.RawMessage) string {
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && s != "" {
		return s
	}
	return string(raw)
}
