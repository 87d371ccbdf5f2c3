package core

import (
	"context"
	"time"
)

// Health is the state of core's dependencies.
type Health struct {
	Store         StoreStatus
	StoreErr      error
	LLMErr        error
	PersonaLoaded bool
}

// healthProbeTimeout keeps a health check fast when a dependency hangs.
const healthProbeTimeout = 3 * time.Second

// Health probes the store and the LLM. Only the store is critical. The
// store's probe counts nothing (Status): /v1/debug/rag and the metrics
// show the counts.
func (s *Service) Health(ctx context.Context) Health {
	ctx, cancel := context.WithTimeout(ctx, healthProbeTimeout)
	defer cancel()
	var h Health
	h.Store, h.StoreErr = s.store.Status(ctx) // no counts: see StoreStatus
	h.Store.Backend = s.store.Backend()       // named even when it does not answer
	if s.llm != nil {
		h.LLMErr = s.llm.Ping(ctx)
	}
	h.PersonaLoaded = s.personaLoaded()
	return h
}

// CheckLLM checks that the LLM backend answers and has the configured model.
func (s *Service) CheckLLM(ctx context.Context) error {
	if s.llm == nil {
		return Errorf(KindUpstream, "no LLM backend is configured")
	}
	return s.llm.Ping(ctx)
}

// LLMInfo names the LLM backend and model.
func (s *Service) LLMInfo() (backend, model string) {
	if s.llm == nil {
		return "", ""
	}
	return s.llm.Backend(), s.llm.Model()
}

// EmbedderName names the embedder.
func (s *Service) EmbedderName() string { return s.embedder.Name() }

// Stats reports the store's statistics.
func (s *Service) Stats(ctx context.Context) (StoreStats, error) { return s.store.Stats(ctx) }
