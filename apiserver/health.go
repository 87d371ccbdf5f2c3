package apiserver

import (
	"cmp"
	"runtime"

	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"

	"github.com/valyala/fasthttp"
)

// MatrixStatus is what cmd/ada reports of the bridge it runs; the name
// stays here because the bridge's wiring (cmd/ada/bridge.go) spells it so.
type MatrixStatus = wire.MatrixStatus

// MCPServerStatus is one MCP server that cmd/ada reports.
type MCPServerStatus = wire.MCPServerStatus

// handleHealth answers 503 only when the store, the one critical
// dependency, fails; a down LLM or bridge is reported but the service stays
// up. It needs no API key, but then shows only the states.
func (s *Server) handleHealth(r *request) error {
	h := s.core.Health(r.ctx)
	var resp wire.Health
	resp.Service = "ada"
	if s.keyed(r.RequestCtx) {
		resp.Python = runtime.Version()
		resp.Config = s.cfg.PublicConfig
		if resp.Config == nil {
			resp.Config = map[string]any{}
		}
	}
	if s.deps.Matrix != nil {
		m := s.deps.Matrix()
		resp.Matrix = &m
	}
	if s.deps.MCPServers != nil {
		resp.MCP = s.deps.MCPServers()
		if !s.keyed(r.RequestCtx) {
			for i := range resp.MCP {
				resp.MCP[i].Error = nil
			}
		}
	}
	resp.Persona.Loaded = h.PersonaLoaded
	resp.Store = wire.StoreStatus{OK: h.StoreErr == nil, Backend: cmp.Or(h.Store.Backend, "sqlite-vec"), Version: h.Store.Version,
		Heartbeat: h.Store.Heartbeat}
	if h.StoreErr == nil {
		resp.Store.Index = h.Store.Index
	}
	if h.StoreErr != nil {
		msg := "vector store unavailable"
		resp.Store.Error = &msg
	}
	backend, model := s.core.LLMInfo()
	resp.LLM = wire.LLMStatus{OK: h.LLMErr == nil, Backend: backend, Model: model}
	if h.LLMErr != nil {
		msg := core.SafeMessage(h.LLMErr)
		resp.LLM.Error = &msg
	}
	resp.OK = h.StoreErr == nil
	status := fasthttp.StatusOK
	if !resp.OK {
		status = fasthttp.StatusServiceUnavailable
	}
	writeJSON(r.RequestCtx, status, resp)
	return nil
}
