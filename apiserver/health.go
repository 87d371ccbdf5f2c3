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

// MatrixStatus is the "matrix" object: the Matrix bridge of `ada up`.
type MatrixStatus struct {
	OK    bool   `json:"ok"`
	State string `json:"state"` // connecting, running, stopped
	// Error says why the bridge is not running (null when it is).
	Error *string `json:"error"`
}

type healthResponse struct {
	OK      bool   `json:"ok"`
	Service string `json:"service"`
	// Python (the Go runtime; the key is kept for compatibility) and Config
	// are shown with the API key only: they help an attacker more than a
	// load balancer.
	Python  string         `json:"python,omitempty"`
	Config  map[string]any `json:"config,omitempty"`
	Persona struct {
		Loaded bool `json:"loaded"`
	} `json:"persona"`
	Chroma storeStatus `json:"chroma"` // the vector store, whatever its backend
	LLM    llmStatus   `json:"llm"`
	// Matrix is there when this process runs the bridge.
	Matrix *MatrixStatus `json:"matrix,omitempty"`
}

// handleHealth answers 503 only when the store, the one critical
// dependency, fails; a down LLM or bridge is reported but the service stays
// up. It needs no API key, but then shows only the states.
func (s *Server) handleHealth(r *request) error {
	h := s.core.Health(r.ctx)
	var resp healthResponse
	resp.Service = "ada"
	if s.hasKey(r.RequestCtx) {
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
