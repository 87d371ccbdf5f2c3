package main

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/ada-chat/ada/core/llm/llmtest"
)

// BenchmarkMetricsOverhead prints what counting costs a chat: POST /v1/chat
// (new conversation, instant scripted model) with METRICS_ENABLED=true and
// false, side by side, in alternating rounds so that a change of load on
// the machine falls on both; and the time of one scrape.
func BenchmarkMetricsOverhead(b *testing.B) {
	const rounds, perRound = 5, 60
	llm := llmtest.New(b)
	llm.Instant(true)
	llm.Default(llmtest.Reply{Tokens: []string{"Sure", ", here", " is", " an", " answer."}})
	start := func(enabled string) *adaProc {
		return startAda(b, "serve", testEnv(b, map[string]string{"LLM_BASE_URL": llm.URL(), "LLM_MODEL": "bench",
			"LOG_LEVEL": "ERROR", "METRICS_ENABLED": enabled}))
	}
	on, off := start("true"), start("false")
	chat := func(ada *adaProc) func() time.Duration {
		return func() time.Duration { return timeChat(b, ada.URL, map[string]any{"auto_memory": false}) }
	}
	var withM, without []time.Duration
	for range rounds {
		withM = append(withM, measure(perRound, chat(on))...)
		without = append(without, measure(perRound, chat(off))...)
	}
	scrape := measure(100, func() time.Duration {
		t0 := time.Now()
		resp, err := http.Get(on.URL + "/metrics")
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("scrape: %v %v", resp, err)
		}
		resp.Body.Close()
		return time.Since(t0)
	})
	fmt.Printf("\nmetrics overhead: POST /v1/chat, new conversation, instant scripted LLM, %d chats each, alternating rounds\n", rounds*perRound)
	fmt.Printf("%-24s %10s %10s %10s\n", "METRICS_ENABLED", "p50", "p95", "p99")
	for _, r := range []struct {
		name string
		d    []time.Duration
	}{{"true", withM}, {"false", without}} {
		fmt.Printf("%-24s %10s %10s %10s\n", r.name, ms(pct(r.d, 50)), ms(pct(r.d, 95)), ms(pct(r.d, 99)))
	}
	fmt.Printf("%-24s %10s\n", "difference (p50)", ms(pct(withM, 50)-pct(without, 50)))
	fmt.Printf("%-24s %10s %10s %10s\n", "GET /metrics (a scrape)", ms(pct(scrape, 50)), ms(pct(scrape, 95)), ms(pct(scrape, 99)))
}
