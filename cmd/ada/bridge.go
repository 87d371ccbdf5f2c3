package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/ada-chat/ada/apiserver"
	"github.com/ada-chat/ada/apiserver/client"
	"github.com/ada-chat/ada/bot"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/specialists/transcribe"
)

// newBridge builds the Matrix bridge; Run connects it. It talks to the core
// in this process, or to the Ada API at ADA_API_URL when that is set; the
// bridge's own tables, crypto store and sync position are in this process's
// database either way. pageServed: the memory page (/ui/) runs in this
// process, beside the API.
func newBridge(a *app, log *slog.Logger, pageServed bool) (*bot.Bot, error) {
	backend, err := newBridgeBackend(a, log)
	if err != nil {
		return nil, err
	}
	opts := bot.OptionsFrom(a.cfg, buildVersion())
	// The memory page runs with the API: a bridge alone (`ada bot`) sends
	// no links to it.
	opts.WebPage = pageServed
	b, err := bot.New(opts, bot.Deps{
		Backend:     backend,
		Transcriber: newTranscriber(a),
		DB:          a.db.Writer(),
		State:       a.db.Bridge(),
		Retention:   a.core,
		Logger:      log,
		Observer:    a.metrics.botObserver(),
	})
	if err != nil {
		return nil, err
	}
	if a.forgotten != nil {
		a.forgotten.setBot(b)
	}
	// Reminders in plain words: the model calls the bridge's specialist.
	// Over ADA_API_URL the chat runs in another process, which cannot reach
	// this bridge; there only `!ada remind` sets them.
	if a.cfg.AdaAPIURL == "" && a.specialists != nil {
		if err := a.specialists.SetTagged(bot.ReminderTag, b.ReminderSpecialist()); err != nil {
			return nil, fmt.Errorf("the reminder specialist: %w", err)
		}
	}
	return b, nil
}

// newTranscriber is the speech-to-text client of voice messages, or nil
// (voice not enabled) without TRANSCRIBE_URL. The bridge calls the server
// itself, also when it reaches Ada through ADA_API_URL.
func newTranscriber(a *app) bot.Transcriber {
	if a.cfg.TranscribeURL == "" {
		return nil
	}
	return transcribe.New(transcribe.Options{BaseURL: a.cfg.TranscribeURL, Model: a.cfg.TranscribeModel,
		APIKey: a.cfg.TranscribeAPIKey, MaxBytes: a.cfg.AudioMaxBytes, HTTPClient: &http.Client{}})
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

// apiProbeTimeout bounds the start-up check of ADA_API_URL.
const apiProbeTimeout = 5 * time.Second

// newBridgeBackend picks the bridge's way to Ada. With ADA_API_URL it checks
// at start that the API answers and accepts API_KEY: a refused key is a
// start-up error (waiting cannot fix it); an API that does not answer yet is
// a warning, since it may start after the bridge.
func newBridgeBackend(a *app, log *slog.Logger) (bot.Backend, error) {
	if a.cfg.AdaAPIURL == "" {
		return bot.NewCoreBackend(a.metrics.chatter("bot", a.core), a.ocr), nil
	}
	log.Info("the bridge calls the Ada API over HTTP; its own state (Matrix keys, room settings, sync position) stays in DATA_DIR",
		"url", a.cfg.AdaAPIURL)
	// No client timeout: a chat stream may last up to REQUEST_TIMEOUT_SECONDS,
	// which the bridge enforces through each call's context.
	c := client.New(a.cfg.AdaAPIURL, a.cfg.APIKey, &http.Client{})
	ctx, cancel := context.WithTimeout(context.Background(), apiProbeTimeout)
	defer cancel()
	switch err := c.CheckAccess(ctx); {
	case err == nil:
		log.Info("the Ada API answers and accepts the key", "url", a.cfg.AdaAPIURL)
	case core.KindOf(err) == core.KindUnauthorized:
		// 401 (the key) or 403 (an API without a key answers only loopback
		// names and PUBLIC_URL's host): the API's own detail says which.
		return nil, fmt.Errorf("the Ada API at %s (ADA_API_URL) refused API_KEY or this address (%s): set API_KEY to the key the API was started with", a.cfg.AdaAPIURL, core.SafeMessage(err))
	default:
		log.Warn("the Ada API does not answer yet; the bridge will post an error notice for each question until it does",
			"url", a.cfg.AdaAPIURL, "error", core.SafeMessage(err))
	}
	return apiBackend{c: c, ocrMax: a.cfg.OCRMaxBytes}, nil
}
