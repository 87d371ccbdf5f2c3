package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/llm/ollama"
	"github.com/ada-chat/ada/storage"
)

// BenchmarkChatService measures the chat path of the real program with the
// scripted LLM answering instantly, in a store of 20,000 and one of 100,000
// documents (ADA_BENCH_DOCS, a comma-separated list, sets the sizes): the
// service's own overhead per chat, the relay delay of the first token, many
// concurrent streams, and where a chat's time goes, stage by stage. It
// prints tables; run it with `make bench` (-benchtime 1x).
func BenchmarkChatService(b *testing.B) {
	sizes := []int{20_000, 100_000}
	if v := os.Getenv("ADA_BENCH_DOCS"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1000 {
				b.Fatalf("ADA_BENCH_DOCS=%q: want sizes of at least 1000, separated by commas", v)
			}
			sizes = append(sizes, n)
		}
	}
	var ran []int
	var stages []stageRun
	for _, docs := range sizes {
		b.Run(fmt.Sprintf("docs=%d", docs), func(b *testing.B) {
			ran = append(ran, docs)
			stages = append(stages, benchChatService(b, docs))
		})
	}
	if len(ran) > 0 {
		printChatStages(ran, stages)
	}
}

// benchChatService prints the chat service's table for a store of docs
// documents and returns the stages of its chats.
func benchChatService(b *testing.B, docs int) stageRun {
	llm := llmtest.New(b)
	llm.Instant(true)
	llm.Default(llmtest.Reply{Tokens: []string{"Sure", ", here", " is", " an", " answer."}})
	env := testEnv(b, map[string]string{"LLM_BASE_URL": llm.URL(), "LLM_MODEL": "bench", "LOG_LEVEL": "ERROR"})
	seedStart := time.Now()
	convs := seedStore(b, env["DATA_DIR"], docs)
	fmt.Printf("seeded %d documents in %.1f s\n", docs, time.Since(seedStart).Seconds())
	clock := &stageClock{}
	ada := startAdaDeps(b, "serve", env, clock.wrap)

	direct := measure(200, func() time.Duration { return directLLMCall(b, llm) })
	chat := measure(200, func() time.Duration { return timeChat(b, ada.URL, nil) })
	// In a long conversation: the recent window, recall of its older turns
	// and summaries, and the automatic-memory extraction queued after done.
	// Each measurement has a seeded conversation of its own, so both start
	// at the same length (and grow alike: two turns per chat).
	inConv := func(conv string, auto bool) func() time.Duration {
		return func() time.Duration {
			return timeChat(b, ada.URL, map[string]any{"conversation_id": conv, "auto_memory": auto})
		}
	}
	convAuto := measure(200, inConv(convs[0], true))
	convNoAuto := measure(200, inConv(convs[1], false))
	relayDirect := measure(100, func() time.Duration { return relayTime(b, llm, directReader(llm)) })
	relayStream := measure(100, func() time.Duration { return relayTime(b, llm, streamReader(ada)) })
	conc := concurrentStreams(b, ada, 200)

	fmt.Printf("\nChat service benchmark (%d documents, instant scripted LLM, GOMAXPROCS=%d)\n", docs, runtime.GOMAXPROCS(0))
	fmt.Printf("%-52s %10s %10s\n", "measurement", "p50", "p99")
	row := func(name string, d []time.Duration) {
		fmt.Printf("%-52s %10s %10s\n", name, ms(pct(d, 50)), ms(pct(d, 99)))
	}
	row("LLM call alone (client → fake, whole answer)", direct)
	overhead := func(name string, d []time.Duration) {
		fmt.Printf("%-52s %10s %10s\n", name, ms(pct(d, 50)-pct(direct, 50)), ms(pct(d, 99)-pct(direct, 99)))
	}
	row("POST /v1/chat end to end (new conversation)", chat)
	overhead("service overhead (chat − LLM call)", chat)
	row("time to done, long conversation, auto memory on", convAuto)
	row("time to done, long conversation, auto memory off", convNoAuto)
	overhead("overhead with recall + auto memory (− LLM call)", convAuto)
	row("first token, fake LLM → LLM client (baseline)", relayDirect)
	row("first token, fake LLM → SSE client via Ada", relayStream)
	fmt.Printf("%-52s %10s %10s\n", "first-token relay added by Ada", ms(pct(relayStream, 50)-pct(relayDirect, 50)), ms(pct(relayStream, 99)-pct(relayDirect, 99)))
	fmt.Printf("\n%d concurrent streams: %d errors, %.0f streams/s, time to first token p50 %s, p99 %s, total %s\n",
		conc.n, conc.errors, float64(conc.n)/conc.total.Seconds(), ms(pct(conc.ttft, 50)), ms(pct(conc.ttft, 99)), ms(conc.total))
	if conc.errors > 0 {
		b.Errorf("%d of %d concurrent streams failed", conc.errors, conc.n)
	}
	// Last, and one chat at a time, in a conversation of its own.
	return measureChatStages(b, ada, clock, convs[2], 100)
}

// seedStore writes n documents: a tenth memories, the rest turns of
// conversations of 100 turns, through the real storage path. It returns the
// ids of the last three whole conversations.
func seedStore(b testing.TB, dir string, n int) []string {
	db := openSeedStore(b, dir)
	defer db.Close()
	conv := core.NewConversationID()
	var convs []string
	putGenerated(b, db, n, func(i int, d *core.Document) {
		if i%10 == 0 {
			d.Meta.Type, d.Meta.Importance = core.DocMemory, 1+i%5
			return
		}
		if i%100 == 1 {
			convs = append(convs, conv)
			conv = core.NewConversationID()
		}
		idx := i % 100
		d.Meta.Type, d.Meta.ConversationID, d.Meta.Role, d.Meta.TurnIndex = core.DocTurn, conv, []string{"user", "assistant"}[i%2], &idx
	})
	return convs[len(convs)-3:]
}

var benchWords = strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu coffee tea garden meeting project deadline invoice weather music berlin paris train flight doctor birthday")

// putGenerated writes n generated documents through the real storage path,
// in batches of 1000, one second apart, oldest first; kind sets each
// document's type and its type's fields.
func putGenerated(b testing.TB, db *storage.DB, n int, kind func(i int, d *core.Document)) {
	w := benchWords
	batch := make([]core.Document, 0, 1000)
	for i := range n {
		text := fmt.Sprintf("%s %s %s note %d about %s", w[i%len(w)], w[(i*7)%len(w)], w[(i*13)%len(w)], i, w[(i*31)%len(w)])
		d := core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text),
			Meta: core.Metadata{Timestamp: time.Now().Add(-time.Duration(n-i) * time.Second), Source: core.SourceChat, Scope: core.ScopeGlobal}}
		kind(i, &d)
		batch = append(batch, d)
		if len(batch) == cap(batch) || i == n-1 {
			if err := db.Put(context.Background(), batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}

func measure(n int, f func() time.Duration) []time.Duration {
	for i := 0; i < 10; i++ {
		f() // warm-up
	}
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = f()
	}
	return out
}

func pct(d []time.Duration, p int) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func directLLMCall(b testing.TB, llm *llmtest.Server) time.Duration {
	c := ollama.New(ollama.Options{BaseURL: llm.URL(), Model: "bench"})
	start := time.Now()
	if err := c.Chat(context.Background(), core.LLMRequest{Messages: []core.Message{{Role: "user", Content: "hi"}}}, func(core.LLMEvent) error { return nil }); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// relayTime holds the fake LLM's first token until the request has
// reached it (so retrieval is over), releases it, and measures how long the
// token takes to come out of read: the relay delay alone.
func relayTime(b testing.TB, llm *llmtest.Server, read func(got chan<- time.Time) error) time.Duration {
	hold := make(chan struct{})
	llm.Script(llmtest.Reply{Tokens: []string{"first", " rest"}, Hold: hold, HoldAfter: 0})
	before := llm.Count()
	got := make(chan time.Time, 1)
	errc := make(chan error, 1)
	go func() { errc <- read(got) }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := llm.WaitRequests(ctx, before+1); err != nil {
		b.Fatal(err)
	}
	released := time.Now()
	close(hold)
	at := <-got
	if err := <-errc; err != nil {
		b.Fatal(err)
	}
	return at.Sub(released)
}

func directReader(llm *llmtest.Server) func(chan<- time.Time) error {
	c := ollama.New(ollama.Options{BaseURL: llm.URL(), Model: "bench"})
	return func(got chan<- time.Time) error {
		sent := false
		return c.Chat(context.Background(), core.LLMRequest{Messages: []core.Message{{Role: "user", Content: "hi"}}}, func(core.LLMEvent) error {
			if !sent {
				got <- time.Now()
				sent = true
			}
			return nil
		})
	}
}

func streamReader(ada *adaProc) func(chan<- time.Time) error {
	return func(got chan<- time.Time) error {
		_, err := readStream(ada, benchPrompts[0], func() { got <- time.Now() })
		return err
	}
}

var benchPrompts = []string{"what about the coffee meeting", "remind me of the project deadline", "any news on the berlin train", "what music do I like"}

func timeChat(b testing.TB, base string, fields map[string]any) time.Duration {
	req := map[string]any{"prompt": benchPrompts[time.Now().Nanosecond()%len(benchPrompts)]}
	for k, v := range fields {
		req[k] = v
	}
	body, _ := json.Marshal(req)
	start := time.Now()
	resp, err := http.Post(base+"/v1/chat", "application/json", bytes.NewReader(body))
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("chat: %v %v", resp, err)
	}
	resp.Body.Close()
	return time.Since(start)
}

// readStream reads one whole stream; it calls onFirst when the first token
// event arrives and returns the time from sending to that moment.
func readStream(ada *adaProc, prompt string, onFirst func()) (time.Duration, error) {
	body, _ := json.Marshal(map[string]any{"prompt": prompt})
	start := time.Now()
	resp, err := http.Post(ada.URL+"/v1/chat/stream", "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	var first time.Duration
	done := false
	for sc.Scan() {
		line := sc.Text()
		if first == 0 && strings.HasPrefix(line, `data: {"type":"token"`) {
			first = time.Since(start)
			if onFirst != nil {
				onFirst()
			}
		}
		if strings.HasPrefix(line, `data: {"type":"error"`) {
			return 0, fmt.Errorf("error event: %s", line)
		}
		if strings.HasPrefix(line, `data: {"type":"done"`) {
			done = true
		}
	}
	if !done || first == 0 {
		return 0, fmt.Errorf("stream ended without tokens and done")
	}
	return first, nil
}

type concurrency struct {
	n, errors int
	ttft      []time.Duration
	total     time.Duration
}

func concurrentStreams(b testing.TB, ada *adaProc, n int) concurrency {
	res := concurrency{n: n}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			d, err := readStream(ada, benchPrompts[i%len(benchPrompts)], nil)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				res.errors++
				return
			}
			res.ttft = append(res.ttft, d)
		}(i)
	}
	wg.Wait()
	res.total = time.Since(start)
	if len(res.ttft) == 0 {
		res.ttft = []time.Duration{0}
	}
	return res
}
