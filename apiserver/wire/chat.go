package wire

import (
	"strings"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/when"
)

// ChatRequest is the body of POST /v1/chat and /v1/chat/stream: SPEC.md and
// DECISIONS.md, plus the bridge's context_messages, room_id and speaker.
// Pointers tell absent from zero; a non-integer in an integer field is
// refused by Decode, naming the field.
type ChatRequest struct {
	Prompt           *string               `json:"prompt,omitempty"`
	Message          *string               `json:"message,omitempty"`
	ConversationID   *string               `json:"conversation_id,omitempty"`
	IncludeThinking  *bool                 `json:"include_thinking,omitempty"`
	Entity           *string               `json:"entity,omitempty"`
	SaveMemory       *bool                 `json:"save_memory,omitempty"`
	MemoryText       *string               `json:"memory_text,omitempty"`
	MemoryImportance *int                  `json:"memory_importance,omitempty"`
	TurnsK           *int                  `json:"turns_k,omitempty"`
	FAQK             *int                  `json:"faq_k,omitempty"`
	MemoryK          *int                  `json:"memory_k,omitempty"`
	RecallK          *int                  `json:"recall_k,omitempty"`
	AutoMemory       *bool                 `json:"auto_memory,omitempty"`
	UserTimestamp    *string               `json:"user_timestamp,omitempty"`
	TimeZone         *string               `json:"timezone,omitempty"`
	Store            *bool                 `json:"store,omitempty"`
	OCRContext       *core.OCRResult       `json:"ocr_context,omitempty"`
	ContextMessages  []core.ContextMessage `json:"context_messages,omitempty"`
	ReplyChain       []core.ContextMessage `json:"reply_chain,omitempty"`
	Model            *string               `json:"model,omitempty"`
	Instructions     *string               `json:"instructions,omitempty"`
	RoomID           *string               `json:"room_id,omitempty"`
	Speaker          *core.Speaker         `json:"speaker,omitempty"`
	// Tools are the MCP servers' tools the model may use: absent = all.
	Tools *[]string `json:"tools,omitempty"`
}

// maxTools bounds the tools list of one request.
const maxTools = 100

// ToCore converts the body's types; every error names its field. The
// values' rules are core's (core.CheckChat).
func (b *ChatRequest) ToCore() (core.ChatRequest, error) {
	req := core.ChatRequest{Store: true}
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
	req.ReplyChain = b.ReplyChain
	req.Model = strings.TrimSpace(deref(b.Model))
	req.Instructions = deref(b.Instructions)
	req.Speaker = b.Speaker
	req.AutoMemory = b.AutoMemory
	req.MCPTools = []string{core.AllTools}
	if b.Tools != nil {
		if len(*b.Tools) > maxTools {
			return req, core.Errorf(core.KindInvalid, "tools: at most %d names", maxTools)
		}
		req.MCPTools = nil // [] is none, as nil is in core
		for _, t := range *b.Tools {
			if t = strings.TrimSpace(t); t == "" || len(t) > 200 {
				return req, core.Errorf(core.KindInvalid, "tools: each entry is a tool (server.tool), a server or \"all\"")
			}
			req.MCPTools = append(req.MCPTools, t)
		}
	}
	if b.IncludeThinking != nil {
		req.IncludeThinking = *b.IncludeThinking
	}
	if b.SaveMemory != nil {
		req.SaveMemory = *b.SaveMemory
	}
	if b.Store != nil {
		req.Store = *b.Store
	}
	req.TurnsK, req.FAQK, req.MemoryK, req.RecallK = b.TurnsK, b.FAQK, b.MemoryK, b.RecallK
	req.MemoryImportance = b.MemoryImportance
	if ts := strings.TrimSpace(deref(b.UserTimestamp)); ts != "" {
		var err error
		if req.UserTimestamp, err = parseTime("user_timestamp", ts); err != nil {
			return req, err
		}
	}
	if tz := strings.TrimSpace(deref(b.TimeZone)); tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil || tz == "Local" || len(tz) > 100 {
			return req, core.Errorf(core.KindInvalid, "timezone: not an IANA time zone name")
		}
		req.Location = loc
		if t := req.UserTimestamp; !t.IsZero() && !when.Storable(t.In(loc)) {
			return req, core.Errorf(core.KindInvalid, "user_timestamp: in the time zone %s, the year must be between 1 and 9999", tz)
		}
	}
	return req, nil
}

// ChatRequestOf is the body that sends r (the Go client's side).
func ChatRequestOf(r core.ChatRequest) ChatRequest {
	b := ChatRequest{
		Prompt: &r.Prompt, ConversationID: ref(r.ConversationID), Entity: ref(r.Entity), MemoryText: ref(r.MemoryText),
		MemoryImportance: r.MemoryImportance, TurnsK: r.TurnsK, FAQK: r.FAQK,
		MemoryK: r.MemoryK, RecallK: r.RecallK, AutoMemory: r.AutoMemory, Store: &r.Store,
		OCRContext: r.OCRContext, ContextMessages: r.ContextMessages, ReplyChain: r.ReplyChain, RoomID: ref(r.RoomID), Speaker: r.Speaker,
		Model: ref(r.Model), Instructions: ref(r.Instructions),
		// Always sent: absent would mean every tool.
		Tools: &[]string{},
	}
	if len(r.MCPTools) > 0 {
		b.Tools = &r.MCPTools
	}
	if r.IncludeThinking {
		b.IncludeThinking = &r.IncludeThinking
	}
	if r.SaveMemory {
		b.SaveMemory = &r.SaveMemory
	}
	if !r.UserTimestamp.IsZero() {
		b.UserTimestamp = ref(formatTime(r.UserTimestamp))
	}
	if r.Location != nil {
		b.TimeZone = ref(r.Location.String())
	}
	return b
}
