package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/ada-chat/ada/core/llm/llmtest"
)

// BenchmarkOpenAIOverhead prints what the OpenAI-compatible endpoint costs
// over Ada's own chat for the same question (a new conversation each, an
// instant scripted model, over HTTP, one at a time), JSON and streamed.
func BenchmarkOpenAIOverhead(b *testing.B) {
	llm := llmtest.New(b)
	llm.Instant(true)
	llm.Default(llmtest.Reply{Tokens: []string{"Sure", ", here", " is", " an", " answer."}})
	ada := startAda(b, "serve", testEnv(b, map[string]string{"LLM_BASE_URL": llm.URL(), "LLM_MODEL": "bench",
		"LOG_LEVEL": "ERROR", "RAG_AUTO_MEMORY": "false"}))
	post := func(path string, body any) time.Duration {
		data, _ := json.Marshal(body)
		start := time.Now()
		resp, err := http.Post(ada.URL+path, "application/json", bytes.NewReader(data))
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("%s: %v %v", path, resp, err)
		}
		var sink bytes.Buffer
		_, _ = sink.ReadFrom(resp.Body)
		resp.Body.Close()
		return time.Since(start)
	}
	n := 0
	question := func() string {
		n++
		return fmt.Sprintf("Question %d: what do you know about %s?", n, benchPrompts[n%len(benchPrompts)])
	}
	completion := func(stream bool) func() time.Duration {
		return func() time.Duration {
			return post("/v1/chat/completions", map[string]any{"model": "ada", "stream": stream,
				"messages": []map[string]any{{"role": "user", "content": question()}}})
		}
	}
	rows := []struct {
		name string
		run  func() time.Duration
		lat  []time.Duration
	}{
		{name: "POST /v1/chat", run: func() time.Duration { return post("/v1/chat", map[string]any{"prompt": question()}) }},
		{name: "POST /v1/chat/completions", run: completion(false)},
		{name: "POST /v1/chat/stream", run: func() time.Duration { return post("/v1/chat/stream", map[string]any{"prompt": question()}) }},
		{name: "POST /v1/chat/completions, stream", run: completion(true)},
	}
	// In turns, so that the store's growth and the machine's load weigh
	// alike on each.
	for i := range 210 {
		for j := range rows {
			if d := rows[j].run(); i >= 10 {
				rows[j].lat = append(rows[j].lat, d)
			}
		}
	}
	fmt.Printf("\nOpenAI-compatible endpoint against Ada's own, new conversation each, instant model, 200 each\n")
	fmt.Printf("%-36s %10s %10s\n", "request", "p50", "p95")
	for _, r := range rows {
		fmt.Printf("%-36s %10s %10s\n", r.name, ms(pct(r.lat, 50)), ms(pct(r.lat, 95)))
	}
}
