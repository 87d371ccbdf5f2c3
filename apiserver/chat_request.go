package apiserver

import (
	"encoding/json"
	"strings"

	"github.com/ada-chat/ada/core"
)

// chatRequestBody is the chat request of SPEC.md and DECISIONS.md, plus the
// bridge's context_messages and room_id. Pointers tell absent from zero.
type chatRequestBody struct {
	Prompt           *string               `json:"prompt"`
	Message          *string               `json:"message"`
	ConversationID   *string               `json:"conversation_id"`
	IncludeThinking  *bool                 `json:"include_thinking"`
	Entity           *string               `json:"entity"`
	SaveMemory       *bool                 `json:"save_memory"`
	MemoryText       *string               `json:"memory_text"`
	MemoryImportance json.RawMessage       `json:"memory_importance"`
	TurnsK           json.RawMessage       `json:"turns_k"`
	FAQK             json.RawMessage       `json:"faq_k"`
	MemoryK          json.RawMessage       `json:"memory_k"`
	RecallK          json.RawMessage       `json:"recall_k"`
	AutoMemory       *bool                 `json:"auto_memory"`
	UserTimestamp    *string               `json:"user_timestamp"`
	Store            *bool                 `json:"store"`
	OCRContext       *core.OCRResult       `json:"ocr_context"`
	ContextMessages  []core.ContextMessage `json:"context_messages"`
	RoomID           *string               `json:"room_id"`
	Speaker          *core.Speaker         `json:"speaker"`
}

// toCore converts the body's types; every error names its field. The
// values' rules are core's (core.CheckChat).
func (b *chatRequestBody) toCore(requestID string) (core.ChatRequest, error) {
	req := core.ChatRequest{Store: true, RequestID: requestID}
	switch {
	case b.Prompt != nil:
		req.Prompt = *b.Prompt
	case b.Message != nil:
		req.Prompt = *b.Message
	}
	req.ConversationID = strings.TrimSpace(deref(b.ConversationID))
	req.Entity = strings.TrimSpace(deref(b.Entity))
	req.MemoryText = deref(b.MemoryText)
	req.RoomID = deref(b.RoomID)
	req.OCRContext = b.OCRContext
	req.ContextMessages = b.ContextMessages
	req.Speaker = b.Speaker
	if b.IncludeThinking != nil {
		req.IncludeThinking = *b.IncludeThinking
	}
	if b.SaveMemory != nil {
		req.SaveMemory = *b.SaveMemory
	}
	if b.Store != nil {
		req.Store = *b.Store
	}
	req.AutoMemory = b.AutoMemory
	var err error
	for _, f := range []struct {
		dst  **int
		raw  json.RawMessage
		name string
	}{{&req.TurnsK, b.TurnsK, "turns_k"}, {&req.FAQK, b.FAQK, "faq_k"}, {&req.MemoryK, b.MemoryK, "memory_k"},
		{&req.RecallK, b.RecallK, "recall_k"}, {&req.MemoryImportance, b.MemoryImportance, "memory_importance"}} {
		if *f.dst, err = optionalInt(f.raw, f.name); err != nil {
			return req, err
		}
	}
	if ts := strings.TrimSpace(deref(b.UserTimestamp)); ts != "" {
		t, err := parseTime("user_timestamp", ts)
		if err != nil {
			return req, err
		}
		req.UserTimestamp = t
	}
	return req, nil
}

// decodeChatRequest reads a chat request body.
func (s *Server) decodeChatRequest(r *request) (core.ChatRequest, error) {
	if err := s.checkBody(r); err != nil {
		return core.ChatRequest{}, err
	}
	var body chatRequestBody
	if err := decodeJSON(r.PostBody(), &body); err != nil {
		return core.ChatRequest{}, err
	}
	req, err := body.toCore(r.id)
	if err != nil {
		return req, err
	}
	return req, core.CheckChat(&req)
}
