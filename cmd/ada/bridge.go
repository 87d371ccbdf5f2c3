package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/ada-chat/ada/apiserver/client"
	"github.com/ada-chat/ada/bot"
)

// runBridge runs the Matrix bridge until ctx ends. It talks to the core in
// this process, or to the Ada API at ADA_API_URL when that is set; the
// bridge's own tables, crypto store and sync position are in this process's
// database either way.
func runBridge(ctx context.Context, a *app, log *slog.Logger) error {
	b, err := bot.New(bot.OptionsFromConfig(a.cfg, buildVersion()), bot.Deps{
		Backend:   newBridgeBackend(a, log),
		DB:        a.db.Writer(),
		ReadDB:    a.db.Reader(),
		Retention: a.core,
		Logger:    log,
	})
	if err != nil {
		return err
	}
	return b.Run(ctx)
}

// newBridgeBackend picks the bridge's way to Ada.
func newBridgeBackend(a *app, log *slog.Logger) bot.Backend {
	if a.cfg.AdaAPIURL == "" {
		return bot.NewCoreBackend(a.core, a.ocr)
	}
	log.Info("the bridge calls the Ada API over HTTP", "url", a.cfg.AdaAPIURL)
	// No client timeout: a chat stream may last up to REQUEST_TIMEOUT_SECONDS,
	// which the bridge enforces through each call's context.
	return apiBackend{c: client.New(a.cfg.AdaAPIURL, a.cfg.APIKey, &http.Client{}), ocrMax: a.cfg.OCRMaxBytes}
}
