package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/llm/ollama"
	"github.com/ada-chat/ada/storage"
)

// fuzzServer runs the real server over a real store, with the fake LLM
// answering at once, for the life of one fuzzing process.
func fuzzServer(f *testing.F) string {
	f.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(f.TempDir(), "ada.db"))
	if err != nil {
		f.Fatal(err)
	}
	emb := embed.Hash{}
	if err := db.CheckEmbedder(ctx, emb.Name()); err != nil {
		f.Fatal(err)
	}
	llm := llmtest.New(f)
	llm.Instant(true)
	svc := core.New(core.Deps{Store: db, Embedder: emb,
		LLM: ollama.New(ollama.Options{BaseURL: llm.URL(), Model: llmtest.ModelName})},
		core.Options{RAGEnabled: true, EnableMemory: true, EnableTurn: true, EnableFAQ: true, EnablePersona: true})
	if err := svc.LoadPersona(ctx, core.PersonaSource{}); err != nil {
		f.Fatal(err)
	}
	// No OCR dependency: the upload route answers 503 instead of forking
	// tesseract for every input.
	srv := New(svc, Deps{}, testConfig(f, func(c *Config) { c.MaxBodyBytes, c.UploadMaxBytes = 64<<10, 64<<10 }), slog.New(slog.DiscardHandler))
	return serveOnLoopback(f, srv, func() { svc.Close(); db.Close() })
}

var fuzzMethods = []string{"GET", "POST", "PATCH", "DELETE", "PUT", "HEAD", "OPTIONS"}

// FuzzRoutes sends arbitrary requests through every decoder of the API, as
// a client would over HTTP: body decoders, path parameters and query
// parameters alike. Whatever comes in, the answer is never a 5xx (a panic is
// recovered as 500, so it shows here), and every error is a JSON
// {"detail"} with a message.
func FuzzRoutes(f *testing.F) {
	url := fuzzServer(f)
	seeds := []struct {
		method      byte
		path, query string
		body        string
	}{
		{1, "/v1/chat", "", `{"prompt":"hi","turns_k":3,"store":false}`},
		{1, "/v1/chat/stream", "", `{"message":"hi","include_thinking":true}`},
		{1, "/v1/chat", "", `{"prompt":"x","user_timestamp":"2026-01-02T15:04:05+02:00","recall_k":-1}`},
		{1, "/v1/memory", "", `{"text":"tea","importance":3,"tags":["a"],"expires_at":"2099-01-01T00:00:00Z"}`},
		{2, "/v1/memory/mem-1", "", `{"importance":9,"expires_at":null}`},
		{0, "/v1/memory", "q=tea&k=5&min_importance=2&scope=global&include_expired=true", ``},
		{0, "/v1/memory", "cursor=zzz&limit=-1", ``},
		{0, "/v1/memory/x/history", "", ``},
		{3, "/v1/memory/x", "", ``},
		{0, "/v1/conversations/recent", "limit=abc", ``},
		{0, "/v1/conversations/conv-6f1f6a52-8f0e-4b7a-9d7e-2b1d3c0ada00", "limit=5", ``},
		{3, "/v1/conversations/not-an-id", "", ``},
		{1, "/v1/ocr/extract", "", `--x--`},
		{0, "/v1/debug/prompt", "prompt=hi", ``},
		{0, "/v1/healthz", "", ``},
		{4, "/v1/info", "", `{}`},
		{0, "/v1/%00/../memory", "q=%ff", ``},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, s.query, []byte(s.body))
	}
	client := &http.Client{Timeout: 30 * time.Second}
	f.Fuzz(func(t *testing.T, m byte, path, query string, body []byte) {
		method := fuzzMethods[int(m)%len(fuzzMethods)]
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n#?") || strings.ContainsAny(query, " \r\n#") {
			return // not a request line a client can send
		}
		target := url + path
		if query != "" {
			target += "?" + query
		}
		req, err := http.NewRequest(method, target, bytes.NewReader(body))
		if err != nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 500 && resp.StatusCode != 503 {
			t.Fatalf("%s %s %q: %d %s", method, target, body, resp.StatusCode, data)
		}
		if resp.StatusCode >= 400 && method != "HEAD" {
			var d struct {
				Detail string `json:"detail"`
			}
			if err := json.Unmarshal(data, &d); err != nil || d.Detail == "" {
				t.Fatalf("%s %s: %d without a JSON detail: %q", method, target, resp.StatusCode, data)
			}
		}
	})
}
