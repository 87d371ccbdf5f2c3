package ollama_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/llm/ollama"
)

func TestContract(t *testing.T) {
	llmtest.RunLLMContract(t, func(c llmtest.Config) core.LLM {
		return ollama.New(ollama.Options{BaseURL: c.BaseURL, APIKey: c.APIKey, Model: c.Model})
	})
}

func TestEmbedderContract(t *testing.T) {
	llmtest.RunEmbedderContract(t, func(c llmtest.Config) core.Embedder {
		return ollama.NewEmbedder(ollama.Options{BaseURL: c.BaseURL, APIKey: c.APIKey, Model: c.Model})
	})
}

// The think flag must be on the wire both ways: thinking models think
// unless told not to.
func TestThinkFlagAlwaysSent(t *testing.T) {
	for _, think := range []bool{true, false} {
		srv := llmtest.New(t)
		c := ollama.New(ollama.Options{BaseURL: srv.URL(), Model: "qwen3"})
		if _, err := llmtest.Collect(ctx(t), c, core.LLMRequest{Think: think}); err != nil {
			t.Fatal(err)
		}
		req := srv.ChatRequests()[0]
		if req.Think == nil || *req.Think != think {
			t.Errorf("think=%v: fake received think %v", think, req.Think)
		}
		want := []byte(`"think":false`)
		if think {
			want = []byte(`"think":true`)
		}
		if !bytes.Contains(req.Body, want) {
			t.Errorf("body %s lacks %s", req.Body, want)
		}
		if !req.Stream || req.Path != "/api/chat" || req.Header.Get("Accept") != "application/x-ndjson" {
			t.Errorf("request %+v", req)
		}
	}
}

// A schema goes out as "format"; without one the field is left off, so
// plain chat stays free text.
func TestFormat(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"facts":{"type":"array","items":{"type":"string"}}},"required":["facts"]}`)
	cases := []struct {
		name   string
		format json.RawMessage
	}{
		{"schema", schema},
		{"none", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			c := ollama.New(ollama.Options{BaseURL: srv.URL(), Model: "m"})
			if _, err := llmtest.Collect(ctx(t), c, core.LLMRequest{Format: tc.format}); err != nil {
				t.Fatal(err)
			}
			req := srv.Requests()[0]
			if !bytes.Equal(req.Format, tc.format) {
				t.Errorf("fake received format %s, want %s", req.Format, tc.format)
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal(req.Body, &body); err != nil {
				t.Fatal(err)
			}
			if got, ok := body["format"]; ok != (tc.format != nil) || !bytes.Equal(got, tc.format) {
				t.Errorf("body %s: format %s, want %s", req.Body, got, tc.format)
			}
		})
	}
}

func TestNoKeyNoAuthorization(t *testing.T) {
	srv := llmtest.New(t)
	if _, err := llmtest.Collect(ctx(t), ollama.New(ollama.Options{BaseURL: srv.URL(), Model: "m"}), core.LLMRequest{}); err != nil {
		t.Fatal(err)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization = %q without a key", h)
	}
}

// Ping looks the model up in /api/tags, where the fake lists
// "llmtest:latest": a name without a tag means :latest, as in Ollama.
func TestPingLooksForTheModel(t *testing.T) {
	cases := []struct {
		model   string
		missing bool
	}{
		{"llmtest", false},
		{"llmtest:latest", false},
		{"llmtest:7b", true},
		{"qwen3:8b", true},
	}
	for _, tc := range cases {
		srv := llmtest.New(t)
		c := ollama.New(ollama.Options{BaseURL: srv.URL() + "/", Model: tc.model})
		err := c.Ping(ctx(t))
		if p := srv.Requests()[0].Path; p != "/api/tags" {
			t.Errorf("Ping asked %s", p)
		}
		if !tc.missing {
			if err != nil {
				t.Errorf("%s: %v", tc.model, err)
			}
			continue
		}
		if want := "ollama pull " + tc.model; err == nil || !strings.Contains(core.SafeMessage(err), want) {
			t.Errorf("%s: err = %v, want a message saying %q", tc.model, err, want)
		}
	}
	c := ollama.New(ollama.Options{Model: "m"})
	if c.Backend() != "ollama" || c.Model() != "m" {
		t.Errorf("Backend/Model = %s/%s", c.Backend(), c.Model())
	}
}

// Ollama refuses think for a model that cannot think; the error carries
// ErrThinkingUnsupported, so that core can ask again without thinking.
func TestThinkingUnsupported(t *testing.T) {
	for _, think := range []bool{true, false} {
		srv := llmtest.New(t)
		srv.Script(llmtest.Reply{Status: 400, Error: `"m" does not support thinking`})
		_, err := llmtest.Collect(ctx(t), ollama.New(ollama.Options{BaseURL: srv.URL(), Model: "m"}), core.LLMRequest{Think: think})
		if core.KindOf(err) != core.KindUpstream || errors.Is(err, core.ErrThinkingUnsupported) != think {
			t.Errorf("think=%v: err = %v (kind %v), want ErrThinkingUnsupported only when thinking was asked", think, err, core.KindOf(err))
		}
	}
}

func TestBadBaseURL(t *testing.T) {
	c := ollama.New(ollama.Options{BaseURL: "localhost:11434", Model: "m"})
	if err := c.Ping(ctx(t)); core.KindOf(err) != core.KindInvalid {
		t.Errorf("err = %v, want KindInvalid", err)
	}
}

func TestEmbedderName(t *testing.T) {
	if n := ollama.NewEmbedder(ollama.Options{Model: "nomic-embed-text"}).Name(); n != "ollama:nomic-embed-text" {
		t.Errorf("Name() = %q", n)
	}
}

// BenchmarkChat measures client plus fake per streamed reply of 16 tokens.
func BenchmarkChat(b *testing.B) {
	srv := llmtest.New(b)
	srv.Instant(true)
	srv.Default(llmtest.Reply{Tokens: strings.Fields(strings.Repeat("tok ", 16))})
	c := ollama.New(ollama.Options{BaseURL: srv.URL(), Model: "m"})
	req := core.LLMRequest{Messages: []core.Message{{Role: "user", Content: "hi"}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := llmtest.Collect(b.Context(), c, req); err != nil {
			b.Fatal(err)
		}
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}
