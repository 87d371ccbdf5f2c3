package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/ada-chat/ada/core"
)

// openaiChat serves POST /v1/chat/completions as an SSE stream.
func (s *Server) openaiChat(w http.ResponseWriter, r *http.Request) {
	rec, err := s.begin(r, "openai")
	var in struct {
		Model    string         `json:"model"`
		Messages []core.Message `json:"messages"`
		Stream   bool           `json:"stream"`
		// Only the schema is recorded; a json_object or text format, or
		// one without a schema, records no Format.
		ResponseFormat *struct {
			JSONSchema *struct {
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err == nil {
		err = json.Unmarshal(rec.Body, &in)
	}
	rec.Model, rec.Messages, rec.Stream = in.Model, in.Messages, in.Stream
	if f := in.ResponseFormat; f != nil && f.JSONSchema != nil {
		rec.Format = present(f.JSONSchema.Schema)
	}
	s.add(rec)
	reply, ok := s.chatReply(w, r, rec, err, openaiError)
	if !ok {
		return
	}
	field := reply.ReasoningField
	if field == "" {
		field = "reasoning_content"
	}
	enc := openaiEncoder{model: in.Model, field: field, created: time.Now().Unix()}
	s.play(w, r, rec, reply, enc)
}

func (s *Server) openaiModels(w http.ResponseWriter, r *http.Request) {
	rec, err := s.begin(r, "openai")
	s.add(rec)
	defer s.finish(rec, false)
	if !s.gate(w, r, err, openaiError) {
		return
	}
	model := map[string]any{"id": ModelName, "object": "model", "created": 0, "owned_by": "llmtest"}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{model}})
}

// openaiEmbed serves POST /v1/embeddings with deterministic vectors.
func (s *Server) openaiEmbed(w http.ResponseWriter, r *http.Request) {
	rec, err := s.begin(r, "openai")
	var in struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err == nil {
		err = json.Unmarshal(rec.Body, &in)
	}
	rec.Model, rec.Input = in.Model, inputTexts(in.Input)
	s.add(rec)
	defer s.finish(rec, false)
	if !s.gate(w, r, err, openaiError) {
		return
	}
	cfg := s.embedConfig()
	if !cfg.held(r) {
		return
	}
	if cfg.Status >= 400 {
		openaiError(w, cfg.Status, "llmtest: scripted embedding failure")
		return
	}
	data := make([]map[string]any, len(rec.Input))
	for i, t := range rec.Input {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Vector(t, cfg.dim())}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "model": in.Model, "data": data})
}

func openaiError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{
		"error": map[string]any{"message": msg, "type": "server_error", "code": nil},
	})
}

// openaiEncoder writes chat.completion.chunk events.
type openaiEncoder struct {
	model   string
	field   string // delta field for reasoning
	created int64
}

func (openaiEncoder) contentType() string { return "text/event-stream" }

func (e openaiEncoder) event(delta map[string]any, finish *string) []byte {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-llmtest", "object": "chat.completion.chunk", "created": e.created, "model": e.model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
	})
	return sse(b)
}

func (e openaiEncoder) chunk(p piece) []byte {
	if p.kind == core.LLMToolCall {
		call := map[string]any{"index": p.index, "id": fmt.Sprintf("call_%d", p.index), "type": "function",
			"function": map[string]string{"name": p.name, "arguments": p.text}}
		return e.event(map[string]any{"role": "assistant", "tool_calls": []any{call}}, nil)
	}
	field := "content"
	if p.kind == core.LLMThinking {
		field = e.field
	}
	return e.event(map[string]any{"role": "assistant", field: p.text}, nil)
}

// end sends the finish, then a usage chunk with no choices, as llama.cpp
// and OpenAI (with stream_options.include_usage) do.
func (e openaiEncoder) end(finish string, u core.Usage) []byte {
	stop := finish
	usage, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-llmtest", "object": "chat.completion.chunk", "created": e.created, "model": e.model,
		"choices": []any{}, "usage": map[string]int{
			"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens, "total_tokens": u.PromptTokens + u.CompletionTokens},
	})
	return append(append(e.event(map[string]any{}, &stop), sse(usage)...), sse([]byte("[DONE]"))...)
}

func (openaiEncoder) streamError(msg string) []byte {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"message": msg, "type": "server_error"}})
	return sse(b)
}

func (openaiEncoder) malformed() []byte {
	return sse([]byte(`{"choices":[{"index":0,"delta":{"content":"unterminated`))
}

func sse(data []byte) []byte {
	out := make([]byte, 0, len(data)+8)
	out = append(out, "data: "...)
	out = append(out, data...)
	return append(out, "\n\n"...)
}
