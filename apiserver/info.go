package apiserver

import (
	"runtime"

	"github.com/ada-chat/ada/core"
)

type endpointInfo struct {
	Method  string `json:"method"`
	Path    string `json:"path"`
	Summary string `json:"summary"`
}

func (s *Server) handleInfo(r *request) error {
	backend, model := s.core.LLMInfo()
	endpoints := make([]endpointInfo, 0, len(s.routes))
	for _, rt := range s.routes {
		endpoints = append(endpoints, endpointInfo{rt.method, rt.pattern, rt.summary})
	}
	opts := s.core.Options()
	writeJSON(r.RequestCtx, 200, map[string]any{
		"service":   "ada",
		"version":   s.cfg.Version,
		"runtime":   runtime.Version(),
		"ai_name":   s.cfg.AIName,
		"user_name": s.cfg.UserName,
		"features": map[string]bool{
			"rag":          opts.RAGEnabled,
			"specialists":  s.core.SpecialistsEnabled(),
			"streaming":    true,
			"memory":       opts.RAGEnabled && opts.EnableMemory,
			"pause_resume": s.core.SpecialistsEnabled(),
			"auth":         s.cfg.APIKey != "",
		},
		"models":        map[string]any{"llm": map[string]string{"backend": backend, "model": model}, "embedding": s.core.EmbedderName(), "dimensions": core.Dim},
		"endpoints":     endpoints,
		"documentation": "/docs",
	})
	return nil
}
