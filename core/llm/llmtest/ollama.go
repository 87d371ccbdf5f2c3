package llmtest

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/ada-chat/ada/core"
)

// Version is what the fake reports at /api/version.
const Version = "0.12.6-llmtest"

// ModelName is the one model the fake lists (so the one a Ping finds); it
// answers chats to any model name.
const ModelName = "llmtest"

// ollamaChat serves POST /api/chat as streaming NDJSON.
func (s *Server) ollamaChat(w http.ResponseWriter, r *http.Request) {
	rec, err := s.begin(r, "ollama")
	var in struct {
		Model    string          `json:"model"`
		Messages []ollamaMessage `json:"messages"`
		Stream   *bool           `json:"stream"`
		Think    json.RawMessage `json:"think"`
		Format   json.RawMessage `json:"format"`
	}
	if err == nil {
		err = json.Unmarshal(rec.Body, &in)
	}
	rec.Model, rec.Messages, rec.Format = in.Model, coreMessages(in.Messages), present(in.Format)
	rec.Stream = in.Stream == nil || *in.Stream // Ollama streams by default
	rec.Think = thinkFlag(in.Think)
	s.add(rec)
	reply, ok := s.chatReply(w, r, rec, err, ollamaError)
	if !ok {
		return
	}
	s.play(w, r, rec, reply, ollamaEncoder{model: in.Model, start: time.Now()})
}

// present returns raw, or nil for an absent or null field.
func present(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// thinkFlag decodes Ollama's think field: a bool, or a level string.
func thinkFlag(raw json.RawMessage) *bool {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var b bool
	if json.Unmarshal(raw, &b) != nil {
		b = true // "high", "medium", "low"
	}
	return &b
}

func (s *Server) ollamaVersion(w http.ResponseWriter, r *http.Request) {
	rec, err := s.begin(r, "ollama")
	s.add(rec)
	defer s.finish(rec, false)
	if s.gate(w, r, err, ollamaError) {
		writeJSON(w, http.StatusOK, map[string]string{"version": Version})
	}
}

func (s *Server) ollamaTags(w http.ResponseWriter, r *http.Request) {
	rec, err := s.begin(r, "ollama")
	s.add(rec)
	defer s.finish(rec, false)
	if !s.gate(w, r, err, ollamaError) {
		return
	}
	model := map[string]any{
		"name": ModelName + ":latest", "model": ModelName + ":latest",
		"modified_at": time.Unix(0, 0).UTC(), "size": 0, "digest": "0000",
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": []any{model}})
}

// ollamaEmbed serves POST /api/embed with deterministic vectors.
func (s *Server) ollamaEmbed(w http.ResponseWriter, r *http.Request) {
	rec, err := s.begin(r, "ollama")
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
	if !s.gate(w, r, err, ollamaError) {
		return
	}
	cfg := s.embedConfig()
	if !cfg.held(r) {
		return
	}
	if cfg.Status >= 400 {
		ollamaError(w, cfg.Status, "llmtest: scripted embedding failure")
		return
	}
	vecs := make([][]float32, len(rec.Input))
	for i, t := range rec.Input {
		vecs[i] = Vector(t, cfg.dim())
	}
	writeJSON(w, http.StatusOK, map[string]any{"model": in.Model, "embeddings": vecs})
}

// inputTexts decodes an embedding input: one string or a list.
func inputTexts(raw json.RawMessage) []string {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	return nil
}

func ollamaError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// ollamaEncoder writes Ollama's NDJSON chat lines.
type ollamaEncoder struct {
	model string
	start time.Time
}

type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	Thinking  string           `json:"thinking,omitempty"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName  string           `json:"tool_name,omitempty"`
}

// ollamaToolCall is a tool call as Ollama writes it: arguments an object.
type ollamaToolCall struct {
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// coreMessages records Ollama's messages in core's (OpenAI's) shape; a
// tool result's ToolCallID holds the tool_name Ollama was sent.
func coreMessages(in []ollamaMessage) []core.Message {
	out := make([]core.Message, len(in))
	for i, m := range in {
		out[i] = core.Message{Role: m.Role, Content: m.Content, ToolCallID: m.ToolName}
		for _, tc := range m.ToolCalls {
			out[i].ToolCalls = append(out[i].ToolCalls, core.ToolCall{Type: "function",
				Function: core.ToolFunction{Name: tc.Function.Name, Arguments: string(tc.Function.Arguments)}})
		}
	}
	return out
}

type ollamaLine struct {
	Model         string        `json:"model"`
	CreatedAt     time.Time     `json:"created_at"`
	Message       ollamaMessage `json:"message"`
	Done          bool          `json:"done"`
	DoneReason    string        `json:"done_reason,omitempty"`
	TotalDuration int64         `json:"total_duration,omitempty"`
	// Token counts, in the last line.
	PromptEvalCount int `json:"prompt_eval_count,omitempty"`
	EvalCount       int `json:"eval_count,omitempty"`
}

func (ollamaEncoder) contentType() string { return "application/x-ndjson" }

func (e ollamaEncoder) chunk(p piece) []byte {
	line := ollamaLine{Model: e.model, CreatedAt: time.Now().UTC(), Message: ollamaMessage{Role: "assistant"}}
	if p.kind == core.LLMToolCall {
		var tc ollamaToolCall
		tc.Function.Name, tc.Function.Arguments = p.name, json.RawMessage(p.text)
		line.Message.ToolCalls = []ollamaToolCall{tc}
		return ndjson(line)
	}
	if p.kind == core.LLMThinking {
		line.Message.Thinking = p.text
	} else {
		line.Message.Content = p.text
	}
	return ndjson(line)
}

func (e ollamaEncoder) end(finish string, u core.Usage) []byte {
	return ndjson(ollamaLine{
		Model: e.model, CreatedAt: time.Now().UTC(), Message: ollamaMessage{Role: "assistant"},
		Done: true, DoneReason: finish, TotalDuration: time.Since(e.start).Nanoseconds(),
		PromptEvalCount: u.PromptTokens, EvalCount: u.CompletionTokens,
	})
}

func (ollamaEncoder) streamError(msg string) []byte {
	return ndjson(map[string]string{"error": msg})
}

func (e ollamaEncoder) malformed() []byte {
	return []byte(`{"model":"` + e.model + `","message":{"role":"assistant","content":"unterminated` + "\n")
}

func ndjson(v any) []byte {
	b, _ := json.Marshal(v)
	return append(b, '\n')
}
