package apiserver

import (
	"runtime"

	"github.com/valyala/fasthttp"
)

type dependencyStatus struct {
	OK      bool    `json:"ok"`
	Backend string  `json:"backend"`
	Version string  `json:"version,omitempty"`
	Model   string  `json:"model,omitempty"`
	Error   *string `json:"error"`
}

type healthResponse struct {
	OK      bool           `json:"ok"`
	Service string         `json:"service"`
	Python  string         `json:"python"` // the Go runtime; the key is kept for compatibility
	Config  map[string]any `json:"config"`
	Persona struct {
		Loaded bool `json:"loaded"`
	} `json:"persona"`
	Chroma dependencyStatus `json:"chroma"` // the vector store, whatever its backend
	LLM    dependencyStatus `json:"llm"`
}

// handleHealth answers 503 only when the store, the one critical
// dependency, fails; a down LLM is reported but the service stays up.
func (s *Server) handleHealth(r *request) error {
	h := s.core.Health(r.ctx)
	var resp healthResponse
	resp.Service = "ada"
	resp.Python = runtime.Version()
	resp.Config = s.cfg.PublicConfig
	resp.Persona.Loaded = h.PersonaLoaded
	resp.Chroma = dependencyStatus{OK: h.StoreErr == nil, Backend: "sqlite-vec", Version: h.Store.Version}
	if h.StoreErr != nil {
		msg := "vector store unavailable"
		resp.Chroma.Error = &msg
	}
	backend, model := s.core.LLMInfo()
	resp.LLM = dependencyStatus{OK: h.LLMErr == nil, Backend: backend, Model: model}
	if h.LLMErr != nil {
		msg := safeDetail(h.LLMErr)
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
