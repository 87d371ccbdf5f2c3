package apiserver

import (
	"runtime"

	"github.com/ada-chat/ada/core"

	"github.com/valyala/fasthttp"
)

// storeStatus and llmStatus are the "chroma" and "llm" objects of DECISIONS.md.
type storeStatus struct {
	OK      bool    `json:"ok"`
	Backend string  `json:"backend"`
	Version string  `json:"version"`
	Error   *string `json:"error"`
}

type llmStatus struct {
	OK      bool    `json:"ok"`
	Backend string  `json:"backend"`
	Model   string  `json:"model"`
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
	Chroma storeStatus `json:"chroma"` // the vector store, whatever its backend
	LLM    llmStatus   `json:"llm"`
}

// handleHealth answers 503 only when the store, the one critical
// dependency, fails; a down LLM is reported but the service stays up.
func (s *Server) handleHealth(r *request) error {
	h := s.core.Health(r.ctx)
	var resp healthResponse
	resp.Service = "ada"
	resp.Python = runtime.Version()
	resp.Config = s.cfg.PublicConfig
	if resp.Config == nil {
		resp.Config = map[string]any{}
	}
	resp.Persona.Loaded = h.PersonaLoaded
	resp.Chroma = storeStatus{OK: h.StoreErr == nil, Backend: "sqlite-vec", Version: h.Store.Version}
	if h.StoreErr != nil {
		msg := "vector store unavailable"
		resp.Chroma.Error = &msg
	}
	backend, model := s.core.LLMInfo()
	resp.LLM = llmStatus{OK: h.LLMErr == nil, Backend: backend, Model: model}
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
