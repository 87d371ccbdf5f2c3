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

// toCore converts and checks the body; every error names its field.
func (b *chatRequestBody) toCore(requestID string) (core.ChatRequest, error) {
	req := core.ChatRequest{Store: true, RequestID: requestID}
	switch {
	case b.Prompt != nil:
		req.Prompt = *b.Prompt
	case b.Message != nil:
		req.Prompt = *b.Message
	}
	if strings.TrimSpace(req.Prompt) == "" {
		return req, core.Errorf(core.KindInvalid, "prompt: is required and must not be blank")
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
	if req.TurnsK, err = optionalInt(b.TurnsK, "turns_k", 0, 20); err != nil {
		return req, err
	}
	if req.FAQK, err = optionalInt(b.FAQK, "faq_k", 0, 10); err != nil {
		return req, err
	}
	if req.MemoryK, err = optionalInt(b.MemoryK, "memory_k", 0, 20); err != nil {
		return req, err
	}
	if req.RecallK, err = optionalInt(b.RecallK, "recall_k", 0, core.MaxRecallK); err != nil {
		return req, err
	}
	imp, err := optionalInt(b.MemoryImportance, "memory_importance", 1, 5)
	if err != nil {
		return req, err
	}
	if imp != nil {
		req.MemoryImportance = *imp
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
	return req, s.core.ValidateChat(&req)
}
