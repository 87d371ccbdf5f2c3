package apiserver

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
)

// The OpenAI-compatible API: chat front-ends (Open WebUI, LibreChat, the
// OpenAI client libraries) talk to Ada as to a model, and Ada answers with
// her memory, per end user and per conversation.

// Headers a front-end may send: the end user, and the conversation.
var (
	userHeaders    = []string{"X-OpenWebUI-User-Id"}
	sessionHeaders = []string{"X-Session-Id", "X-OpenWebUI-Chat-Id", "X-Conversation-Id"}
)

// handleModels lists the model names a completion may ask for: Ada's own
// and the configured LLM's, which mean the same.
func (s *Server) handleModels(r *request) error {
	created := s.started.Unix()
	list := wire.ModelList{Object: "list", Data: []wire.Model{{ID: wire.AdaModel, Object: "model", Created: created, OwnedBy: "ada"}}}
	if _, model := s.core.LLMInfo(); model != "" && model != wire.AdaModel {
		list.Data = append(list.Data, wire.Model{ID: model, Object: "model", Created: created, OwnedBy: "ada"})
	}
	writeJSON(r.RequestCtx, 200, list)
	return nil
}

// handleCompletion answers POST /v1/chat/completions, as one JSON object or
// as a stream of chunks.
func (s *Server) handleCompletion(r *request) error {
	body, req, err := s.decodeCompletion(r)
	if err != nil {
		return err
	}
	r.Response.Header.Set("X-Ada-Conversation-Id", req.ConversationID)
	id, created := "chatcmpl-"+r.id, time.Now().Unix()
	if !body.Stream {
		res, err := s.chatWatched(r, req)
		if err != nil {
			return err
		}
		msg := &wire.CompletionOutput{Role: "assistant", Content: &res.Response}
		if len(res.ToolCalls) > 0 {
			msg.ToolCalls = wire.CallsOf(res.ToolCalls)
			if res.Response == "" {
				msg.Content = nil
			}
		}
		writeJSON(r.RequestCtx, 200, wire.Completion{
			ID: id, Object: "chat.completion", Created: created, Model: body.Model,
			Choices: []wire.CompletionChoice{{Message: msg, FinishReason: &res.FinishReason}},
			Usage:   wire.UsageOf(res.Usage),
			Ada:     wire.CompletionAda{ConversationID: res.ConversationID},
		})
		return nil
	}
	enc := &openAIChunks{id: id, created: created, model: body.Model,
		usage: body.StreamOptions != nil && body.StreamOptions.IncludeUsage}
	s.startStream(r, req, enc)
	return nil
}

// decodeCompletion reads and checks a completion request and makes Ada's
// chat request of it: the end user (never shaped like a Matrix id) as the
// memory entity, the conversation from the front-end's session, or from the
// conversation's first messages when there is a user (core.FrontEndChat).
func (s *Server) decodeCompletion(r *request) (wire.CompletionRequest, core.ChatRequest, error) {
	var body wire.CompletionRequest
	if err := s.checkBody(r); err != nil {
		return body, core.ChatRequest{}, err
	}
	if err := wire.Decode(r.PostBody(), &body); err != nil {
		return body, core.ChatRequest{}, err
	}
	field, user := firstHeader(r, userHeaders)
	if user == "" {
		field, user = "user", body.User
	}
	if err := core.CheckFrontEndUser(field, user); err != nil {
		return body, core.ChatRequest{}, err
	}
	req, err := body.ToCore(user)
	if err != nil {
		return body, req, err
	}
	if _, model := s.core.LLMInfo(); body.Model != wire.AdaModel && body.Model != model {
		return body, req, core.Errorf(core.KindNotFound, "model: %q is not served here; GET /v1/models lists the models", wire.Truncate(body.Model, 60))
	}
	_, session := firstHeader(r, sessionHeaders)
	s.cfg.ConversationKey.FrontEndChat(&req, session, body.Opening())
	return body, req, core.CheckChat(&req)
}

// firstHeader is the first of the named headers the request carries, and
// its value.
func firstHeader(r *request, names []string) (name, value string) {
	for _, n := range names {
		if v := strings.TrimSpace(string(r.Request.Header.Peek(n))); v != "" {
			return n, v
		}
	}
	return "", ""
}

// openAIChunks writes a chat as OpenAI's chat.completion.chunk stream: a
// role chunk, content chunks (or pieces of calls of the client's tools), a
// finish chunk, a usage chunk when asked for, and [DONE]. Thinking and
// specialist results are Ada's own and not sent.
type openAIChunks struct {
	id      string
	created int64
	model   string
	usage   bool
}

func (e *openAIChunks) start() string {
	empty := ""
	return e.chunk([]wire.CompletionChoice{{Delta: &wire.CompletionOutput{Role: "assistant", Content: &empty}}}, nil)
}

func (e *openAIChunks) event(ev core.Event) (string, error) {
	switch ev.Type {
	case core.EventToken:
		content := ev.Content
		return e.chunk([]wire.CompletionChoice{{Delta: &wire.CompletionOutput{Content: &content}}}, nil), nil
	case core.EventToolCall:
		tc := ev.ToolCall
		call := wire.CompletionCall{Index: &tc.Index, ID: tc.ID, Function: wire.CompletionCallFunc{Name: tc.Name, Arguments: tc.Arguments}}
		if tc.ID != "" {
			call.Type = "function"
		}
		return e.chunk([]wire.CompletionChoice{{Delta: &wire.CompletionOutput{ToolCalls: []wire.CompletionCall{call}}}}, nil), nil
	case core.EventDone:
		finish := "stop"
		if ev.Done != nil && ev.Done.FinishReason != "" {
			finish = ev.Done.FinishReason
		}
		out := e.chunk([]wire.CompletionChoice{{Delta: &wire.CompletionOutput{}, FinishReason: &finish}}, nil)
		if e.usage && ev.Done != nil {
			u := wire.UsageOf(ev.Done.Usage)
			out += e.chunk([]wire.CompletionChoice{}, &u)
		}
		return out + "data: [DONE]\n\n", nil
	case core.EventError:
		return e.errorFrame(wire.Status(ev.Kind), ev.Error), nil
	default:
		return "", nil
	}
}

// failure is an error chunk, as OpenAI's own streams end on a failure;
// its clients raise it as an APIError.
func (e *openAIChunks) failure(err error) string {
	return e.errorFrame(statusOf(err), core.SafeMessage(err))
}

func (e *openAIChunks) errorFrame(status int, message string) string {
	data, _ := json.Marshal(wire.OpenAIErrorFor(status, message))
	return sseData(data)
}

func (e *openAIChunks) chunk(choices []wire.CompletionChoice, usage *wire.CompletionUsage) string {
	data, _ := json.Marshal(wire.CompletionChunk{ID: e.id, Object: "chat.completion.chunk", Created: e.created,
		Model: e.model, Choices: choices, Usage: usage})
	return sseData(data)
}
