package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/ada-chat/ada/apiserver"
	"github.com/ada-chat/ada/apiserver/keylimit"
	"github.com/ada-chat/ada/apiserver/mcp"
	"github.com/ada-chat/ada/apiserver/ui"
	"github.com/ada-chat/ada/bot"
	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/storage"
)

// runServices runs the API ("serve"), the bridge ("bot") or both ("up")
// until ctx ends, then stops them in reverse order.
func runServices(ctx context.Context, cmd string, cfg *config.Config, log *slog.Logger, env runEnv) error {
	mx := newAppMetrics(cfg)
	a, err := openApp(ctx, cfg, log, mx.wrap(env.deps))
	if err != nil {
		return err
	}
	defer a.close()
	a.metrics = mx
	mx.watchStore(a, log)
	mx.watchMCP(a.mcp)
	if env.built != nil {
		env.built(a.core)
	}
	// The vector index loads in the background: its size is logged only
	// when it is already known, so that the start does not wait for it.
	index := any("loading")
	if !a.db.VectorIndexLoading() {
		index = a.db.VectorIndexLen()
	}
	log.Info("ada starting", "command", cmd, "version", buildVersion(), "db", cfg.DBPath(), "store", backendOf(cfg),
		"db_vector_index", index, "embedder", a.core.EmbedderName())

	runAPI := cmd == "serve" || cmd == "up"
	runBot := cmd == "bot" || (cmd == "up" && cfg.BridgeEnabled())
	if cmd == "bot" && !cfg.BridgeEnabled() {
		return errors.New("MATRIX_HOMESERVER is not set: the bridge has nothing to connect to")
	}
	if cmd == "up" && !cfg.BridgeEnabled() {
		log.Info("Matrix bridge is off: MATRIX_HOMESERVER is not set; serving the API alone")
	}
	if runAPI || cfg.AdaAPIURL == "" {
		reportLLM(ctx, a, log)
	}
	var bridge *bot.Bot
	if runBot {
		if bridge, err = newBridge(a, log.With("component", "bot"), runAPI); err != nil {
			return err
		}
		mx.watchBridge(bridge)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	if runBot {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := bridge.Run(ctx)
			if err != nil {
				// The bridge gives up only on what waiting cannot fix
				// (refused credentials); it retries an unreachable
				// homeserver for ever. Then the whole process ends, the API
				// too, with a failure exit: systemd's Restart=on-failure
				// restarts it and the journal says why, where a live API
				// beside a dead bridge would look healthy for ever.
				errs <- fmt.Errorf("the Matrix bridge stopped, so Ada stops too (a service manager restarts it): %w", err)
				cancel()
			}
		}()
	}
	if runAPI && !runBot {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sweepRetention(ctx, a, log.With("component", "retention"))
		}()
	}
	if runAPI {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := serveAPI(ctx, a, log, env, bridge); err != nil {
				errs <- err
				cancel()
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// llmProbeTimeout bounds the start-up check of the LLM backend: an LLM host
// that drops packets must not hold the start for long.
const llmProbeTimeout = 3 * time.Second

// reportLLM logs in one line whether the LLM backend answers and has the
// model, so that the operator learns it at start rather than from the first
// failed chat; the error says what to do ("ollama pull ...").
func reportLLM(ctx context.Context, a *app, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(ctx, llmProbeTimeout)
	defer cancel()
	backend, model := a.core.LLMInfo()
	if err := a.core.CheckLLM(ctx); err != nil {
		if !errors.Is(ctx.Err(), context.Canceled) { // not when stopping at once
			attrs := []any{"backend", backend, "model", model, "error", err.Error()}
			if errors.Is(err, syscall.ECONNREFUSED) {
				attrs = append(attrs, "fix", llmRefusedFix(backend))
			}
			log.Warn("the LLM is not ready: chats fail until this is fixed", attrs...)
		}
		return
	}
	log.Info("the LLM answers and has the model", "backend", backend, "model", model)
}

// llmRefusedFix is what to do when nothing listens at LLM_BASE_URL: the
// server is not running, or it runs elsewhere.
func llmRefusedFix(backend string) string {
	start := "start the LLM server"
	if backend == "ollama" {
		start = "start Ollama (ollama serve, or systemctl start ollama)"
	}
	return start + ", or set LLM_BASE_URL to the address it listens on (Ollama listens on 127.0.0.1:11434 unless OLLAMA_HOST says otherwise)"
}

func serveAPI(ctx context.Context, a *app, log *slog.Logger, env runEnv, bridge *bot.Bot) error {
	cfg := a.cfg
	key, err := conversationKey(cfg.DataDir)
	if err != nil {
		return err
	}
	// One count of wrong keys per client for the API and the page, so a
	// guesser gets no more tries by using both.
	keys := keylimit.New(keylimit.Options{Trusted: cfg.TrustedProxies})
	srv := apiserver.New(a.metrics.chatter("api", a.core), a.metrics.apiDeps(apiserver.Deps{Music: a.music, OCR: a.ocr, Matrix: bridgeHealth(bridge), MCPServers: mcpHealth(a.mcp),
		MCP:  mcp.Handler(a.core, mcp.Options{Version: buildVersion(), Log: log.With("component", "mcp")}),
		Keys: keys,
		UI: ui.Handler(a.core, ui.Options{APIKey: cfg.APIKey, PublicURL: cfg.PublicURL, AIName: cfg.AIName, Log: log.With("component", "ui"), Members: uiMembers(bridge), Origins: a.db.Bridge(),
			Keys: keys})}), apiserver.Config{
		RequestTimeout: cfg.RequestTimeout, KeepAlive: cfg.SSEKeepAlive, MaxBodyBytes: cfg.MaxBodyBytes, UploadMaxBytes: cfg.OCRMaxBytes,
		OCRConcurrency: cfg.OCRConcurrency,
		APIKey:         cfg.APIKey, RAGDebug: cfg.RAGDebug, Version: buildVersion(),
		MetricsToken: cfg.MetricsToken, MetricsNetworks: cfg.MetricsNets,
		AIName: cfg.AIName, UserName: cfg.UserName, PublicConfig: cfg.Public(), CORSOrigins: cfg.CORSOrigins,
		ConversationKey: key,
		PublicURL:       cfg.PublicURL,
	}, log)
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("listen on %s (LISTEN_ADDR): %w", cfg.ListenAddr, err)
	}
	log.Info("API listening", "addr", ln.Addr().String(), "docs", "/docs", "memory_page", "/ui/")
	warnWithoutKey(cfg, log)
	if env.ready != nil {
		env.ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: running requests may finish", "grace", cfg.ShutdownGrace.String())
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	return srv.Shutdown(sctx)
}

// uiMembers is what lets room members into the memory page: the Matrix
// bridge issues their links and knows their rooms. Without a bridge,
// member links are refused with a page that says so (a nil *bot.Bot
// must not become a non-nil interface).
func uiMembers(bridge *bot.Bot) ui.Members {
	if bridge == nil {
		return nil
	}
	return bridge
}

// warnWithoutKey tells the operator at start what an unset API_KEY leaves
// open. On loopback it is less than it sounds: Ada then answers only
// requests for localhost (or PUBLIC_URL's host), so a web page cannot reach
// it, but every program and user of this machine can.
func warnWithoutKey(cfg *config.Config, log *slog.Logger) {
	switch {
	case cfg.APIKey != "":
	case !loopbackListen(cfg.ListenAddr):
		log.Warn("the API and the memory page (/ui/) listen beyond loopback without an API key: anyone who can reach this port can chat and read, change and forget memories; "+
			"set API_KEY, or LISTEN_ADDR=127.0.0.1:7000 behind a reverse proxy", "LISTEN_ADDR", cfg.ListenAddr)
	default:
		log.Warn("running without API_KEY: every program and user of this machine can chat and read, change and forget memories through the API, /mcp and the memory page; " +
			"only requests addressed to localhost, a loopback address or PUBLIC_URL's host are answered, so web pages cannot; set API_KEY to require a key")
	}
}

// loopbackListen reports a listen address only this machine can reach:
// localhost or a loopback address. Every interface (no host, 0.0.0.0, ::)
// and any other address are reachable from the network.
func loopbackListen(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

func runMigrate(ctx context.Context, cfg *config.Config, out io.Writer) error {
	db, unlock, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer unlock()
	defer db.Close()
	if from, to := db.SchemaUpgrade(); from > 0 && from < to {
		fmt.Fprintf(out, "migrated schema %d → %d\n", from, to)
	}
	fmt.Fprintf(out, "database %s is at schema version %d\n", cfg.DBPath(), storage.LatestSchemaVersion())
	return nil
}

// logUpgrade says which migrations the open just ran, if any, so that an
// upgrade is visible in the start log (a new database is no upgrade).
func logUpgrade(log *slog.Logger, db *storage.DB) {
	if from, to := db.SchemaUpgrade(); from > 0 && from < to {
		log.Info(fmt.Sprintf("migrated schema %d → %d", from, to), "schema_from", from, "schema_to", to)
	}
}
