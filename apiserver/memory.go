package apiserver

import (
	"encoding/json"
	"strings"

	"github.com/ada-chat/ada/core"
)

type memorySearchResponse struct {
	Items []core.Memory `json:"items"`
	Count int           `json:"count"`
	// Next is the cursor of the following page of a listing; null at the end
	// and for searches.
	Next *string `json:"next"`
}

// handleMemorySearch serves both documented forms: search= (default limit
// 20) and query= (default limit 10).
func (s *Server) handleMemorySearch(r *request) error {
	text, def := strParam(r, "search"), core.MaxMemoryLimit
	if text == "" {
		if q := strParam(r, "query"); q != "" {
			text, def = q, 10
		}
	}
	limit, err := intParam(r, "limit", def)
	if err != nil {
		return err
	}
	page, err := s.core.MemoryPage(r.ctx, core.MemoryQuery{
		Text: text, Entity: strParam(r, "entity"), Scope: strParam(r, "scope"),
		ConversationID: strParam(r, "conversation_id"), Tag: strParam(r, "tag"), Limit: limit,
		Cursor: strParam(r, "cursor"),
	})
	if err != nil {
		return err
	}
	resp := memorySearchResponse{Items: page.Items, Count: len(page.Items)}
	if page.Next != "" {
		resp.Next = &page.Next
	}
	writeJSON(r.RequestCtx, 200, resp)
	return nil
}

// memoryCreateRequest accepts both documented body forms.
type memoryCreateRequest struct {
	Text           *string         `json:"text"`
	Content        *string         `json:"content"`
	Importance     json.RawMessage `json:"importance"`
	MemoryType     *string         `json:"memory_type"`
	Scope          *string         `json:"scope"`
	Entity         *string         `json:"entity"`
	Tags           []string        `json:"tags"`
	ConversationID *string         `json:"conversation_id"`
	ExpiresAt      *string         `json:"expires_at"`
	RoomID         *string         `json:"room_id"`
	UserID         *string         `json:"user_id"`
}

func (req *memoryCreateRequest) toInput() (core.MemoryInput, error) {
	var in core.MemoryInput
	switch {
	case req.Text != nil:
		in.Text = *req.Text
	case req.Content != nil:
		in.Text = *req.Content
	}
	var err error
	if in.Importance, err = optionalInt(req.Importance, "importance"); err != nil {
		return in, err
	}
	in.Tags, in.MemoryType = req.Tags, deref(req.MemoryType)
	in.Scope, in.Entity, in.ConversationID = deref(req.Scope), deref(req.Entity), deref(req.ConversationID)
	in.RoomID, in.UserID = strings.TrimSpace(deref(req.RoomID)), strings.TrimSpace(deref(req.UserID))
	if req.ExpiresAt != nil {
		t, err := parseTime("expires_at", *req.ExpiresAt)
		if err != nil {
			return in, err
		}
		in.ExpiresAt = &t // core rejects a time that has passed
	}
	in.Source = core.SourceChat
	return in, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (s *Server) handleMemoryCreate(r *request) error {
	if err := s.checkBody(r); err != nil {
		return err
	}
	var req memoryCreateRequest
	if err := decodeJSON(r.PostBody(), &req); err != nil {
		return err
	}
	in, err := req.toInput()
	if err != nil {
		return err
	}
	m, err := s.core.CreateMemory(r.ctx, in)
	if err != nil {
		return err
	}
	// 201 only when something new was stored: a refreshed duplicate is the
	// existing memory, so a client retrying a create sees 200 and its id.
	status := 201
	if m.Deduplicated != nil && *m.Deduplicated {
		status = 200
	}
	writeJSON(r.RequestCtx, status, m)
	return nil
}

func (s *Server) handleMemoryDelete(r *request) error {
	id := pathParam(r, "id")
	if err := s.core.DeleteMemory(r.ctx, id); err != nil {
		return err
	}
	writeJSON(r.RequestCtx, 200, map[string]any{"ok": true, "id": id, "detail": "memory deleted"})
	return nil
}
