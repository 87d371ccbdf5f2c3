package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/llm/openai"
)

func TestContract(t *testing.T) {
	llmtest.RunLLMContract(t, func(c llmtest.Config) core.LLM {
		return openai.New(openai.Options{BaseURL: c.BaseURL, APIKey: c.APIKey, Model: c.Model})
	})
}

func TestEmbedderContract(t *testing.T) {
	llmtest.RunEmbedderContract(t, func(c llmtest.Config) core.Embedder {
		return openai.NewEmbedder(openai.EmbedderOptions{Options: openai.Options{BaseURL: c.BaseURL, APIKey: c.APIKey, Model: c.Model}})
	})
}

func TestAPIKeyHeader(t *testing.T) {
	cases := []struct {
		key, want string
	}{
		{"sk-abc", "Bearer sk-abc"},
		{"", ""},
	}
	for _, tc := range cases {
		srv := llmtest.New(t)
		c := openai.New(openai.Options{BaseURL: srv.URL(), APIKey: tc.key, Model: llmtest.ModelName})
		if _, err := llmtest.Collect(ctx(t), c, core.LLMRequest{}); err != nil {
			t.Fatal(err)
		}
		if err := c.Ping(ctx(t)); err != nil {
			t.Fatal(err)
		}
		for _, r := range srv.Requests() {
			if got := r.Header.Get("Authorization"); got != tc.want {
				t.Errorf("%s: Authorization = %q, want %q", r.Path, got, tc.want)
			}
		}
	}
}

func TestRequestShape(t *testing.T) {
	srv := llmtest.New(t)
	c := openai.New(openai.Options{BaseURL: srv.URL(), Model: "gpt"})
	if _, err := llmtest.Collect(ctx(t), c, core.LLMRequest{Think: true}); err != nil {
		t.Fatal(err)
	}
	r := srv.ChatRequests()[0]
	if r.Path != "/v1/chat/completions" || !r.Stream || r.Model != "gpt" || r.Header.Get("Accept") != "text/event-stream" {
		t.Errorf("request %+v", r)
	}
	// OpenAI rejects unknown parameters, so no think flag is sent.
	if bytes.Contains(r.Body, []byte("think")) {
		t.Errorf("body %s carries a think field", r.Body)
	}
}

// A schema goes out as a strict json_schema response_format; without one
// response_format is left off, as servers that lack it would refuse it.
func TestFormat(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"facts":{"type":"array","items":{"type":"string"}}},"required":["facts"],"additionalProperties":false}`)
	cases := []struct {
		name   string
		format json.RawMessage
		want   string // response_format as sent; "" for none
	}{
		{"schema", schema, `{"type":"json_schema","json_schema":{"name":"ada_output","schema":` + string(schema) + `,"strict":true}}`},
		{"none", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.New(t)
			c := openai.New(openai.Options{BaseURL: srv.URL(), Model: "gpt"})
			if _, err := llmtest.Collect(ctx(t), c, core.LLMRequest{Format: tc.format}); err != nil {
				t.Fatal(err)
			}
			r := srv.Requests()[0]
			if !bytes.Equal(r.Format, tc.format) {
				t.Errorf("fake received format %s, want %s", r.Format, tc.format)
			}
			var body map[string]json.RawMessage
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatal(err)
			}
			if got := string(body["response_format"]); got != tc.want {
				t.Errorf("response_format = %s, want %s", got, tc.want)
			}
			if _, ok := body["format"]; ok {
				t.Errorf("body %s carries Ollama's format field", r.Body)
			}
		})
	}
}

// Base URLs are written both ways in the wild; /v1 must not be doubled.
func TestBaseURLWithVersion(t *testing.T) {
	for _, suffix := range []string{"", "/", "/v1", "/v1/"} {
		srv := llmtest.New(t)
		c := openai.New(openai.Options{BaseURL: srv.URL() + suffix, Model: llmtest.ModelName})
		if err := c.Ping(ctx(t)); err != nil {
			t.Fatalf("%q: %v", suffix, err)
		}
		e := openai.NewEmbedder(openai.EmbedderOptions{Options: openai.Options{BaseURL: srv.URL() + suffix, Model: "e"}})
		if _, err := e.Embed(ctx(t), []string{"x"}); err != nil {
			t.Fatalf("%q: %v", suffix, err)
		}
		var paths []string
		for _, r := range srv.Requests() {
			paths = append(paths, r.Path)
		}
		if want := []string{"/v1/models", "/v1/embeddings"}; !slices.Equal(paths, want) {
			t.Errorf("%q: paths %v, want %v", suffix, paths, want)
		}
	}
}

func TestSendDimensions(t *testing.T) {
	for _, send := range []bool{true, false} {
		srv := llmtest.New(t)
		e := openai.NewEmbedder(openai.EmbedderOptions{Options: openai.Options{BaseURL: srv.URL(), Model: "e"}, SendDimensions: send})
		if _, err := e.Embed(ctx(t), []string{"x"}); err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(srv.Requests()[0].Body, []byte(`"dimensions":768`)); got != send {
			t.Errorf("SendDimensions=%v: body %s", send, srv.Requests()[0].Body)
		}
	}
	if n := openai.NewEmbedder(openai.EmbedderOptions{Options: openai.Options{Model: "text-embedding-3-small"}}).Name(); n != "openai:text-embedding-3-small" {
		t.Errorf("Name() = %q", n)
	}
}

// BenchmarkChat measures client plus fake per streamed reply of 16 tokens.
func BenchmarkChat(b *testing.B) {
	srv := llmtest.New(b)
	srv.Instant(true)
	srv.Default(llmtest.Reply{Tokens: strings.Fields(strings.Repeat("tok ", 16))})
	c := openai.New(openai.Options{BaseURL: srv.URL(), Model: "m"})
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
