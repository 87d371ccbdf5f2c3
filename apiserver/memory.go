package apiserver

import (
	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
)

// handleMemorySearch lists or searches memories (wire.ParseMemoryQuery
// reads both documented forms).
func (s *Server) handleMemorySearch(r *request) error {
	q, err := wire.ParseMemoryQuery(func(name string) string { return strParam(r, name) })
	if err != nil {
		return err
	}
	page, err := s.core.MemoryPage(r.ctx, q)
	if err != nil {
		return err
	}
	writeJSON(r.RequestCtx, 200, wire.MemoryPageOf(page))
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
	if err := s.core.DeleteMemoryFor(r.ctx, id, strParam(r, "reason")); err != nil {
		return err
	}
	writeJSON(r.RequestCtx, 200, map[string]any{"ok": true, "id": id, "detail": "memory deleted"})
	return nil
}

// handleMemoryForget forgets an entity, or a Matrix user everywhere or in
// one room (`!ada forget me` over HTTP): core.Service.Forget.
func (s *Server) handleMemoryForget(r *request) error {
	res, err := s.core.Forget(r.ctx, core.ForgetRequest{Entity: strParam(r, "entity"), RoomID: strParam(r, "room_id"), Reason: strParam(r, "reason")})
	if err != nil {
		return err
	}
	writeJSON(r.RequestCtx, 200, res)
	return nil
}
