package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ada-chat/ada/core/llm/llmtest"
)

// corsPage is the browser front-end of TestCORSInBrowser: it loads the
// official OpenAI client and streams a chat from Ada, on another origin,
// with the headers a front-end sends (its end user, its conversation); the
// result is the streamed text and the conversation header the client read.
const corsPage = `<!doctype html>
<html><head><title>front-end</title></head><body>
<script type="module">
import OpenAI from "/openai/index.mjs";
window.runChat = async (base, key) => {
  const client = new OpenAI({ baseURL: base + "/v1", apiKey: key, maxRetries: 0, dangerouslyAllowBrowser: true });
  const { data: stream, response } = await client.chat.completions.create(
    { model: "ada", stream: true, messages: [{ role: "user", content: "Hello from a browser." }] },
    { headers: { "X-OpenWebUI-User-Id": "alice", "X-OpenWebUI-Chat-Id": "chat-7", "X-Session-Id": "chat-7", "X-Conversation-Id": "chat-7" } },
  ).withResponse();
  let text = "";
  for await (const chunk of stream) for (const c of chunk.choices) text += c.delta.content ?? "";
  return { text, conversation: response.headers.get("X-Ada-Conversation-Id") ?? "" };
};
window.pageReady = true;
</script></body></html>`

// TestCORSInBrowser: the official OpenAI JavaScript client, in a real
// Chromium page served from another origin (CORS_ORIGINS), streams a chat
// from Ada with a front-end's headers and reads the conversation id Ada
// answers with. The browser refuses the whole call if the preflight leaves
// out one header the client sends, and hides the conversation header unless
// Ada exposes it.
func TestCORSInBrowser(t *testing.T) {
	_, dir := findOpenAIClient(t)
	browser := headlessChromium(t, 800, 600)

	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(corsPage))
	})
	files := http.StripPrefix("/openai/", http.FileServer(http.Dir(filepath.Join(dir, "node_modules", "openai"))))
	mux.HandleFunc("/openai/", func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".mjs") {
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		}
		files.ServeHTTP(w, r)
	})
	page := httptest.NewServer(mux)
	t.Cleanup(page.Close)

	llm := llmtest.New(t)
	llm.Default(llmtest.Reply{Tokens: []string{"Hello", " across", " origins."}})
	const key = "test-key-cors-browser"
	ada := startAda(t, "serve", testEnv(t, map[string]string{
		"LLM_BASE_URL": llm.URL(), "LLM_MODEL": "tiny", "API_KEY": key, "RAG_AUTO_MEMORY": "false",
		"CORS_ORIGINS": page.URL}))

	ctx, cancel := context.WithTimeout(browser, 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	var console []string
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventConsoleAPICalled); ok {
			mu.Lock()
			for _, a := range e.Args {
				console = append(console, string(a.Value)+a.Description)
			}
			mu.Unlock()
		}
	})
	var res struct{ Text, Conversation string }
	err := chromedp.Run(ctx,
		chromedp.Navigate(page.URL+"/"),
		chromedp.Poll(`window.pageReady === true`, nil),
		chromedp.Evaluate(`window.runChat(`+jsString(ada.URL)+`, `+jsString(key)+`)`, &res,
			func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	)
	if err != nil {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the OpenAI client in the browser: %v\nconsole: %v", err, console)
	}
	if res.Text != "Hello across origins." {
		t.Errorf("streamed %q, want the model's reply", res.Text)
	}
	if res.Conversation == "" {
		t.Errorf("the browser could not read X-Ada-Conversation-Id")
	}
	// The headers reached Ada: the same user and chat id, sent without a
	// browser, continue the browser's conversation.
	body := toJSON(map[string]any{"model": "ada", "messages": []map[string]string{{"role": "user", "content": "And from Go."}}})
	req, _ := http.NewRequest("POST", ada.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-OpenWebUI-User-Id", "alice")
	req.Header.Set("X-OpenWebUI-Chat-Id", "chat-7")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("X-Ada-Conversation-Id"); resp.StatusCode != 200 || got != res.Conversation {
		t.Errorf("the same user and chat from Go: %d, conversation %q; the browser's was %q", resp.StatusCode, got, res.Conversation)
	}
}

// jsString quotes s for a JavaScript expression.
func jsString(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}
