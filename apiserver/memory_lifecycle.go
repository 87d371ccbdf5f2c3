package apiserver

import (
	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
)

func (s *Server) handleMemoryGet(r *request) error {
	m, err := s.core.GetMemory(r.ctx, pathParam(r, "id"))
	if err != nil {
		return err
	}
	writeJSON(r.RequestCtx, 200, m)
	return nil
}

func (s *Server) handleMemoryPatch(r *request) error {
	if err := s.checkBody(r); err != nil {
		return err
	}
	var req wire.MemoryPatch
	if err := wire.Decode(r.PostBody(), &req); err != nil {
		return err
	}
	p, err := req.ToPatch()
	if err != nil {
		return err
	}
	m, err := s.core.PatchMemory(r.ctx, pathParam(r, "id"), p)
	if err != nil {
		return err
	}
	writeJSON(r.RequestCtx, 200, m)
	return nil
}

type memoryHistoryResponse struct {
	MemoryID string              `json:"memory_id"`
	Items    []core.HistoryEntry `json:"items"`
	Count    int                 `json:"count"`
}

// handleMemoryHistory answers also for retired, deleted and expired
// memories: the history is where the 404 of GET /v1/memory/{id} points.
func (s *Server) handleMemoryHistory(r *request) error {
	id := pathParam(r, "id")
	items, err := s.core.MemoryHistory(r.ctx, id)
	if err != nil {
		return err
	}
	writeJSON(r.RequestCtx, 200, memoryHistoryResponse{MemoryID: id, Items: items, Count: len(items)})
	return nil
}
