package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/llm/ollama"
	"github.com/ada-chat/ada/core/llm/openai"
	"github.com/ada-chat/ada/core/specialists/mcptools"
	"github.com/ada-chat/ada/core/specialists/media"
	"github.com/ada-chat/ada/core/specialists/ocr"
	"github.com/ada-chat/ada/core/specialists/websearch"
	"github.com/ada-chat/ada/storage"
)

// app is the wired program: one database, one core, shared by the API and
// the bridge.
type app struct {
	cfg *config.Config
	db  *storage.DB
	// store holds the documents: db, or the Chroma server of VECTORDB_URL.
	store documentStore
	// unlock gives DATA_DIR back once the database is closed.
	unlock func()
	core   *core.Service
	music  *media.Client
	ocr    *ocr.Extractor
	// stop ends background work (persona watching) and waits for it.
	stop func()
	// metrics is nil with METRICS_ENABLED=false.
	metrics *appMetrics
	// mcp holds the MCP_SERVERS_FILE servers whose tools are specialists.
	mcp *mcptools.Manager
	// forgotten hears what core deletes, for the bridge (forget_fanout.go).
	forgotten *forgetFanout
	// specialists is the core's registry: the bridge adds its reminder
	// specialist when it runs in this process (newBridge).
	specialists *core.Registry
}

// personaPoll is how often PERSONA_FILE is checked for changes.
const personaPoll = 5 * time.Second

// newSpecialists builds the registry from the settings: web_search only
// when WEBSEARCH_URL is set, media only with a music provider user (the MCP
// servers' tools join it later, mcpToolsInto).
func newSpecialists(cfg *config.Config, hc *http.Client) (*core.Registry, *media.Client, *ocr.Extractor, error) {
	ws, err := websearch.New(websearch.Options{URL: cfg.WebSearchURL, HTTPClient: hc})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("WEBSEARCH_URL: %w", err)
	}
	music, err := media.NewClient(media.Options{URL: cfg.MusicProviderURL, User: cfg.MusicProviderUser, Token: cfg.MusicProviderToken, HTTPClient: hc})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("MUSICPROVIDER_URL: %w", err)
	}
	extractor := ocr.New(ocr.Options{Binary: cfg.TesseractPath, Languages: cfg.TesseractLang, MaxBytes: cfg.OCRMaxBytes})
	reg, err := core.NewRegistry(ws, media.NewSpecialist(music), ocr.NewSpecialist(extractor, ocr.SpecialistOptions{}))
	if err != nil {
		return nil, nil, nil, err
	}
	return reg, music, extractor, nil
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
		Models:     cfg.RoomModels,
		RAGEnabled: cfg.RAGEnabled, EnablePersona: cfg.RAGEnablePersona, EnableFAQ: cfg.RAGEnableFAQ,
		EnableMemory: cfg.RAGEnableMemory, EnableTurn: cfg.RAGEnableTurn, EnableSummary: cfg.RAGEnableSummary,
		TurnTopK: cfg.RAGTurnTopK, FAQTopK: cfg.RAGFAQTopK, MemoryTopK: cfg.RAGMemoryTopK, SummaryTopK: cfg.RAGSummaryTopK,
		SimWeight: cfg.RAGSimWeight, ImportanceWeight: cfg.RAGImportanceWeight,
		RecencyBonus: cfg.RAGRecencyBonus, RecencyHalfLife: cfg.RAGRecencyHalfLife,
		SummaryEveryN: cfg.RAGSummaryEveryN, RecallTopK: cfg.RAGRecallTopK, ContextBudget: cfg.RAGContextBudget, RelevanceFloor: cfg.RAGRelevanceFloor, SearchMode: cfg.RAGSearchMode,
		AutoMemory: cfg.RAGAutoMemory, MemoryDedup: cfg.RAGMemoryDedup, BackgroundWorkers: cfg.BackgroundWorkers,
		AIName: cfg.AIName, UserName: cfg.UserName,
		SpecialistsEnabled: cfg.SpecialistsEnabled, SpecialistMaxTurns: cfg.SpecialistMaxTurns, SpecialistTimeout: cfg.SpecialistTimeout,
	}
}

// openApp opens the store, checks the embedder against it, and builds core;
// adjust, if set, may replace core's dependencies first (runEnv.deps).
func openApp(ctx context.Context, cfg *config.Config, log *slog.Logger, adjust func(*core.Deps)) (*app, error) {
	loadFailed := storage.WithLoadErrors(func(err error) {
		log.Error("vector index could not be loaded; vector searches scan the database until it is (tried again)", "error", err)
	})
	loaded := storage.WithLoadDone(func(rows int, took time.Duration) {
		log.Info("vector index loaded", "documents", rows, "seconds", took.Seconds())
	})
	db, unlock, err := openStore(ctx, cfg, append(localStoreOptions(cfg), loadFailed, loaded)...)
	if err != nil {
		return nil, err
	}
	logUpgrade(log, db)
	fail := func(err error) (*app, error) {
		db.Close()
		unlock()
		return nil, err
	}
	hc := &http.Client{} // timeouts come from each request's context
	emb, err := newEmbedder(cfg, hc)
	if err != nil {
		return fail(err)
	}
	store, err := openDocumentStore(ctx, cfg, db)
	if err != nil {
		return fail(err)
	}
	if err := store.CheckEmbedder(ctx, emb.Name()); err != nil {
		return fail(err)
	}
	llm, err := newLLM(cfg, hc)
	if err != nil {
		return fail(err)
	}
	servers, err := mcptools.LoadFile(cfg.MCPServersFile)
	if err != nil {
		return fail(err)
	}
	reg, music, extractor, err := newSpecialists(cfg, hc)
	if err != nil {
		return fail(err)
	}
	tools := mcptools.Start(ctx, servers, mcptools.Options{Timeout: cfg.MCPToolTimeout, Version: buildVersion(), Logger: log, HTTPClient: hc,
		Tools: mcpToolsInto(reg, log)})
	forgotten := &forgetFanout{bridge: db.Bridge()}
	deps := core.Deps{Store: store, Embedder: emb, LLM: llm, Logger: log, Specialists: reg, Forgotten: forgotten}
	if adjust != nil {
		adjust(&deps)
	}
	svc := core.New(deps, coreOptions(cfg))
	a := &app{cfg: cfg, db: db, store: store, unlock: unlock, core: svc, music: music, ocr: extractor, mcp: tools, forgotten: forgotten,
		specialists: reg}
	if err := loadKnowledge(ctx, svc, cfg); err != nil {
		a.close()
		return nil, err
	}
	a.watchPersona(core.PersonaSource{Path: cfg.PersonaFile}, personaPoll)
	return a, nil
}

// loadKnowledge loads the persona, the FAQ file and the specialists' FAQ
// entries into svc: what a running Ada knows before the first chat (the
// service and `ada eval chat` alike).
func loadKnowledge(ctx context.Context, svc *core.Service, cfg *config.Config) error {
	if err := svc.LoadPersona(ctx, core.PersonaSource{Path: cfg.PersonaFile}); err != nil {
		return err
	}
	if _, err := svc.LoadFAQFile(ctx, cfg.FAQFile); err != nil {
		return err
	}
	if err := svc.SyncSpecialistFAQs(ctx); err != nil {
		return fmt.Errorf("synchronising the specialists' FAQ entries: %w", err)
	}
	return nil
}

// watchPersona starts watching the persona file; a.stop ends the watcher
// and waits for it, so that a reload in progress never writes to a closed
// database.
func (a *app) watchPersona(src core.PersonaSource, every time.Duration) {
	wctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	a.stop = func() {
		cancel()
		<-done
	}
	go func() {
		defer close(done)
		a.core.WatchPersona(wctx, src, every)
	}()
}

func (a *app) close() {
	if a.stop != nil {
		a.stop()
	}
	// The API and the bridge have stopped: the background work they caused
	// gets the grace period to finish, then the store closes last.
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownGrace)
	a.core.Shutdown(ctx)
	cancel()
	if a.mcp != nil {
		a.mcp.Close() // no answer runs now: the servers stop
	}
	a.db.Close()
	a.unlock()
}
