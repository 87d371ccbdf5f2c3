package apiserver

import (
	"encoding/json"
	"strings"

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

// memoryPatchRequest is the PATCH body. expires_at is raw so that null
// (clear the expiry) differs from absent (keep it).
type memoryPatchRequest struct {
	Text       *string         `json:"text"`
	Importance json.RawMessage `json:"importance"`
	Tags       *[]string       `json:"tags"`
	ExpiresAt  json.RawMessage `json:"expires_at"`
}

func (req *memoryPatchRequest) toPatch() (core.MemoryPatch, error) {
	p := core.MemoryPatch{Text: req.Text, Tags: req.Tags}
	var err error
	if p.Importance, err = optionalInt(req.Importance, "importance"); err != nil {
		return p, err
	}
	switch raw := strings.TrimSpace(string(req.ExpiresAt)); {
	case raw == "":
	case raw == "null":
		p.ClearExpiry = true
	default:
		var v string
		if json.Unmarshal(req.ExpiresAt, &v) != nil {
			return p, core.Errorf(core.KindInvalid, "expires_at: must be an ISO 8601 string or null, got %s", truncate(raw, 40))
		}
		t, err := parseTime("expires_at", v)
		if err != nil {
			return p, err
		}
		p.ExpiresAt = &t
	}
	// Unknown fields are ignored as everywhere else; a body that sets
	// nothing (a misspelt field) is refused by core.
	return p, nil
}

func (s *Server) handleMemoryPatch(r *request) error {
	if err := s.checkBody(r); err != nil {
		return err
	}
	var req memoryPatchRequest
	if err := decodeJSON(r.PostBody(), &req); err != nil {
		return err
	}
	p, err := req.toPatch()
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
