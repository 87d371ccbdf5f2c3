package main

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/bot"
	"github.com/ada-chat/ada/config"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// bridgeBackend wires the bridge's backend exactly as `ada bot` does for the
// settings: the core in this process, or the HTTP client of ADA_API_URL.
func bridgeBackend(t *testing.T, env map[string]string) bot.Backend {
	t.Helper()
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	a, err := openApp(context.Background(), cfg, log, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	b, err := newBridgeBackend(a, log)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBridgeBackendsFailAlike: the same failures through the core in the
// bridge's process and through the API over HTTP give errors of the same
// kind and message, so the bridge tells room members the same thing either
// way (bot.Backend's promise).
func TestBridgeBackendsFailAlike(t *testing.T) {
	llm := llmtest.New(t)
	settings := func(extra map[string]string) map[string]string {
		env := map[string]string{"LLM_BACKEND": "ollama", "LLM_BASE_URL": llm.URL(), "LLM_MODEL": llmtest.ModelName}
		for k, v := range extra {
			env[k] = v
		}
		return testEnv(t, env)
	}
	// The API gives up on a request after 1 s; the bridge's own chat
	// timeout does the same in its process.
	api := startAda(t, "serve", settings(map[string]string{"REQUEST_TIMEOUT_SECONDS": "1"}))
	backends := map[string]bot.Backend{
		"in-process": bridgeBackend(t, settings(nil)),
		"http":       bridgeBackend(t, settings(map[string]string{"ADA_API_URL": api.URL})),
	}
	chat := func(prompt string) func(bot.Backend) error {
		return func(b bot.Backend) error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if b == backends["in-process"] {
				ctx, cancel = context.WithTimeout(context.Background(), time.Second)
			}
			defer cancel()
			_, err := b.Chat(ctx, core.ChatRequest{Prompt: prompt, Store: true}, func(core.Event) error { return nil })
			return err
		}
	}
	conv := core.NewConversationID()
	cases := []struct {
		name  string
		setup func()
		call  func(bot.Backend) error
		kind  core.ErrorKind
	}{
		{"the model is too slow", func() { llm.Script(llmtest.Reply{Tokens: []string{"late"}, FirstDelay: 3 * time.Second}) }, chat("hello"), core.KindCanceled},
		{"the model fails mid-stream", func() { llm.Script(llmtest.Reply{Status: 500, Error: "model crashed"}) }, chat("hello"), core.KindUpstream},
		{"the model's stream breaks", func() {
			llm.Script(llmtest.Reply{Tokens: []string{"half an"}, StreamError: true, Error: "connection reset by the GPU"})
		}, chat("hello"), core.KindUpstream},
		{"the model answers garbage", func() { llm.Script(llmtest.Reply{Tokens: []string{"half"}, Malformed: true}) }, chat("hello"), core.KindUpstream},
		{"a prompt over the limit", func() {}, chat(strings.Repeat("x", core.MaxPromptChars+1)), core.KindInvalid},
		{"a blank memory", func() {}, func(b bot.Backend) error {
			_, err := b.CreateMemory(context.Background(), core.MemoryInput{Text: "  "})
			return err
		}, core.KindInvalid},
		{"an unknown memory", func() {}, func(b bot.Backend) error {
			return b.DeleteMemory(context.Background(), "doc-00000000-0000-4000-8000-000000000000", "")
		}, core.KindNotFound},
		{"reading an unknown memory", func() {}, func(b bot.Backend) error {
			_, err := b.GetMemory(context.Background(), "doc-00000000-0000-4000-8000-000000000000")
			return err
		}, core.KindNotFound},
		{"an unknown turn", func() {}, func(b bot.Backend) error {
			return b.DeleteTurns(context.Background(), conv, []string{"doc-00000000-0000-4000-8000-000000000000"}, "")
		}, core.KindNotFound},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]error{}
			for name, b := range backends {
				tc.setup()
				got[name] = tc.call(b)
			}
			local, remote := got["in-process"], got["http"]
			if core.KindOf(local) != tc.kind || core.KindOf(remote) != tc.kind {
				t.Fatalf("kinds: in-process %d (%v), http %d (%v); want %d", core.KindOf(local), local, core.KindOf(remote), remote, tc.kind)
			}
			// The two timeouts say in their own words who gave up.
			if tc.kind != core.KindCanceled && core.SafeMessage(local) != core.SafeMessage(remote) {
				t.Errorf("messages differ:\n in-process: %s\n http:       %s", core.SafeMessage(local), core.SafeMessage(remote))
			}
		})
	}
}
