package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/llm/ollama"
	"github.com/ada-chat/ada/core/llm/openai"
	"github.com/ada-chat/ada/storage"
)

// app is the wired program: one database, one core, shared by the API and
// the bridge.
type app struct {
	cfg  *config.Config
	db   *storage.DB
	core *core.Service
}

func newEmbedder(cfg *config.Config, hc *http.Client) (core.Embedder, error) {
	switch cfg.EmbedBackend {
	case "", "hash":
		return embed.Hash{}, nil
	case "ollama":
		return ollama.NewEmbedder(ollama.Options{BaseURL: cfg.EmbedBaseURL, Model: cfg.EmbedModel, APIKey: cfg.EmbedAPIKey, HTTPClient: hc}), nil
	case "openai":
		return openai.NewEmbedder(openai.EmbedderOptions{
			Options:        openai.Options{BaseURL: cfg.EmbedBaseURL, Model: cfg.EmbedModel, APIKey: cfg.EmbedAPIKey, HTTPClient: hc},
			SendDimensions: true,
		}), nil
	default:
		return nil, fmt.Errorf("EMBED_BACKEND=%s: must be hash, ollama or openai", cfg.EmbedBackend)
	}
}

func newLLM(cfg *config.Config, hc *http.Client) (core.LLM, error) {
	switch cfg.LLMBackend {
	case "", "ollama":
		return ollama.New(ollama.Options{BaseURL: cfg.LLMBaseURL, Model: cfg.LLMModel, APIKey: cfg.LLMAPIKey, HTTPClient: hc}), nil
	case "openai":
		return openai.New(openai.Options{BaseURL: cfg.LLMBaseURL, Model: cfg.LLMModel, APIKey: cfg.LLMAPIKey, HTTPClient: hc}), nil
	default:
		return nil, fmt.Errorf("LLM_BACKEND=%s: must be ollama or openai", cfg.LLMBackend)
	}
}

func coreOptions(cfg *config.Config) core.Options {
	return core.Options{
		RAGEnabled: cfg.RAGEnabled, EnablePersona: cfg.RAGEnablePersona, EnableFAQ: cfg.RAGEnableFAQ,
		EnableMemory: cfg.RAGEnableMemory, EnableTurn: cfg.RAGEnableTurn, EnableSummary: cfg.RAGEnableSummary,
		TurnTopK: cfg.RAGTurnTopK, FAQTopK: cfg.RAGFAQTopK, MemoryTopK: cfg.RAGMemoryTopK, SummaryTopK: cfg.RAGSummaryTopK,
		SimWeight: cfg.RAGSimWeight, ImportanceWeight: cfg.RAGImportanceWeight,
		RecencyBonus: cfg.RAGRecencyBonus, RecencyHalfLife: cfg.RAGRecencyHalfLife,
		SummaryEveryN: cfg.RAGSummaryEveryN, SummaryTurnsWindow: cfg.RAGSummaryTurnsWindow,
		AIName: cfg.AIName, UserName: cfg.UserName,
		SpecialistMaxTurns: cfg.SpecialistMaxTurns, SpecialistTimeout: cfg.SpecialistTimeout,
	}
}

// openApp opens the store, checks the embedder against it, and builds core.
func openApp(ctx context.Context, cfg *config.Config, log *slog.Logger) (*app, error) {
	db, err := storage.Open(ctx, cfg.DBPath())
	if err != nil {
		return nil, err
	}
	hc := &http.Client{} // timeouts come from each request's context
	emb, err := newEmbedder(cfg, hc)
	if err != nil {
		db.Close()
		return nil, err
	}
	if err := db.CheckEmbedder(ctx, emb.Name()); err != nil {
		db.Close()
		return nil, err
	}
	llm, err := newLLM(cfg, hc)
	if err != nil {
		db.Close()
		return nil, err
	}
	svc := core.New(core.Deps{Store: db, Embedder: emb, LLM: llm, Logger: log}, coreOptions(cfg))
	return &app{cfg: cfg, db: db, core: svc}, nil
}

func (a *app) close() {
	a.core.Close()
	a.db.Close()
}
