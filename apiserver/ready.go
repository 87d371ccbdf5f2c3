package apiserver

import (
	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"

	"github.com/valyala/fasthttp"
)

// handleReady is readiness, beside /v1/healthz's liveness: 503 when any
// configured component is down (the store, the LLM, the Matrix bridge of
// this process), with the reason of each. healthz stays 200 for a down LLM
// or bridge, since restarting Ada cannot fix them; a load balancer or an
// alert wants to know anyway.
func (s *Server) handleReady(r *request) error {
	h := s.core.Health(r.ctx)
	resp := wire.Readiness{Failing: map[string]string{}}
	if h.StoreErr != nil {
		resp.Failing["store"] = "vector store unavailable"
	}
	if h.LLMErr != nil {
		resp.Failing["llm"] = core.SafeMessage(h.LLMErr)
	}
	if s.deps.Matrix != nil {
		if m := s.deps.Matrix(); !m.OK {
			reason := "the Matrix bridge is " + m.State
			if m.Error != nil {
				reason += ": " + *m.Error
			}
			resp.Failing["matrix"] = reason
		}
	}
	resp.Ready = len(resp.Failing) == 0
	status := fasthttp.StatusOK
	if !resp.Ready {
		status = fasthttp.StatusServiceUnavailable
	}
	writeJSON(r.RequestCtx, status, resp)
	return nil
}
