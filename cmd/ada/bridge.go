package main

import (
	"log/slog"
	"net/http"

	"github.com/ada-chat/ada/apiserver"
	"github.com/ada-chat/ada/apiserver/client"
	"github.com/ada-chat/ada/bot"
)

// newBridge builds the Matrix bridge; Run connects it. It talks to the core
// in this process, or to the Ada API at ADA_API_URL when that is set; the
// bridge's own tables, crypto store and sync position are in this process's
// database either way.
func newBridge(a *app, log *slog.Logger) (*bot.Bot, error) {
	return bot.New(bot.OptionsFromConfig(a.cfg, buildVersion()), bot.Deps{
		Backend:   newBridgeBackend(a, log),
		DB:        a.db.Writer(),
		ReadDB:    a.db.Reader(),
		Retention: a.core,
		Logger:    log,
	})
}

// bridgeHealth is the bridge's state for /v1/healthz (nil without a bridge).
func bridgeHealth(b *bot.Bot) func() apiserver.MatrixStatus {
	if b == nil {
		return nil
	}
	return func() apiserver.MatrixStatus {
		st := b.Status()
		m := apiserver.MatrixStatus{OK: st.State == bot.StateRunning, State: st.State}
		if st.Err != "" {
			m.Error = &st.Err
		}
		return m
	}
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
