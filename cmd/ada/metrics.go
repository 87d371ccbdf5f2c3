package main

import (
	"context"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ada-chat/ada/apiserver"
	"github.com/ada-chat/ada/bot"
	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/metrics"
	"github.com/ada-chat/ada/core/specialists/mcptools"
)

// appMetrics is the program's one Prometheus registry and Ada's collectors
// on it; nil with METRICS_ENABLED=false, when nothing is counted.
type appMetrics struct {
	reg *prometheus.Registry
	m   *metrics.Metrics
}

// newAppMetrics makes the registry (never the global default one) with the
// Go runtime's, the process's and Ada's collectors.
func newAppMetrics(cfg *config.Config) *appMetrics {
	if !cfg.MetricsEnabled {
		return nil
	}
	reg := prometheus.NewRegistry()
	return &appMetrics{reg: reg, m: metrics.New(reg, buildVersion())}
}

// wrap returns openApp's adjust: core's LLM, embedder and store are timed
// and counted, and its background jobs observed; then next, if set (the
// benchmarks' timers), wraps those.
func (x *appMetrics) wrap(next func(*core.Deps)) func(*core.Deps) {
	return func(d *core.Deps) {
		if x != nil {
			x.m.Wrap(d)
		}
		if next != nil {
			next(d)
		}
	}
}

// watchStore adds the documents per type and the database's size, read at
// each scrape.
func (x *appMetrics) watchStore(a *app, log *slog.Logger) {
	if x != nil {
		metrics.RegisterStore(x.reg, a.store, log)
	}
}

// watchBridge adds ada_bot_up, the bridge's state at each scrape.
func (x *appMetrics) watchBridge(b *bot.Bot) {
	if x != nil && b != nil {
		metrics.RegisterBridge(x.reg, func() bool { return b.Status().State == bot.StateRunning })
	}
}

// watchMCP counts the calls of the MCP servers' tools.
func (x *appMetrics) watchMCP(m *mcptools.Manager) {
	if x != nil && m != nil && len(m.Status()) > 0 {
		m.Observe(metrics.NewTools(x.reg).Observe)
	}
}

// apiDeps adds the request hooks and the registry /metrics serves.
func (x *appMetrics) apiDeps(d apiserver.Deps) apiserver.Deps {
	if x != nil {
		d.Metrics, d.Gatherer = x.m, x.reg
	}
	return d
}

// chatter is core with its chats timed and counted under source ("api",
// "bot"); for the API and the in-process bridge.
func (x *appMetrics) chatter(source string, svc *core.Service) meteredCore {
	chat := metrics.ChatFunc(svc.Chat)
	if x != nil {
		chat = x.m.Chat(source, chat)
	}
	return meteredCore{Service: svc, chat: chat}
}

// meteredCore is core with its Chat timed and counted.
type meteredCore struct {
	*core.Service
	chat metrics.ChatFunc
}

func (c meteredCore) Chat(ctx context.Context, req core.ChatRequest, emit func(core.Event) error) (core.ChatResult, error) {
	return c.chat(ctx, req, emit)
}

// botObserver counts what the bridge does; nil (the bridge's no-op) when
// metrics are off.
func (x *appMetrics) botObserver() bot.Observer {
	if x == nil {
		return nil
	}
	return x.m
}
