package apiserver

import (
	"github.com/ada-chat/ada/apiserver/wire"
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

func (s *Server) handleMemoryCreate(r *request) error {
	if err := s.checkBody(r); err != nil {
		return err
	}
	var req wire.MemoryCreate
	if err := wire.Decode(r.PostBody(), &req); err != nil {
		return err
	}
	in, err := req.ToInput()
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
