package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// BenchmarkChromaChatRequests is BenchmarkBackends' chat on Chroma alone,
// at ADA_BENCH_CHROMA_CHAT_DOCS memories (default 10000), with the
// Chroma requests the chats send listed by kind (endpoint; ids, where,
// where_document), each with how many a chat sends and the time they
// take a chat at the p50: where a chat's overhead goes. Chats in a new
// conversation, then chats continuing one of ADA_BENCH_CHROMA_CHAT_TURNS
// turns (default 400, written anew each run). ADA_BENCH_CHROMA_URL names a
// Chroma server to use instead of one of its own (its memories, seeded
// by an earlier run, are kept: two builds compared on the same data).
//
//	ADA_BENCH_CHROMA_CHAT_DOCS=100000 go test -run '^$' -bench ChromaChatRequests -benchtime 1x ./cmd/ada
func BenchmarkChromaChatRequests(b *testing.B) {
	n := benchInt(b, "ADA_BENCH_CHROMA_CHAT_DOCS", 10_000)
	const chats = 40
	server := os.Getenv("ADA_BENCH_CHROMA_URL")
	if server == "" {
		c := startChroma(b)
		if c == nil {
			return
		}
		server = c.url
	}
	llm := llmtest.New(b)
	llm.Instant(true)
	llm.Default(llmtest.Reply{Tokens: []string{"Sure", ", here", " is", " an", " answer."}})
	bk := &backendRun{name: "Chroma", url: server}
	env := bk.env(b, "bench-chat", llm)
	store, closeStore := bk.open(b, env)
	if count, err := store.Count(context.Background(), core.Filter{Type: core.DocMemory}, n); err != nil {
		b.Fatal(err)
	} else if count < n { // a server of ADA_BENCH_CHROMA_URL seeded by an earlier run is used as it is
		benchCorpus(n, 0, 7).putAda(b, store, count, n)
	}
	turns := benchInt(b, "ADA_BENCH_CHROMA_CHAT_TURNS", 400)
	continuing := seedConversation(b, store, turns)
	closeStore()
	target, _ := url.Parse(server)
	log := &chromaLog{}
	proxy := httptest.NewServer(log.wrap(httputil.NewSingleHostReverseProxy(target)))
	defer proxy.Close()
	env["VECTORDB_URL"] = strings.Replace(env["VECTORDB_URL"], server, proxy.URL, 1)
	ada := startAda(b, "serve", env)
	defer ada.stop()
	fmt.Printf("\nA chat's Chroma requests, %d memories, %d chats each, load average %s\n", n, chats, loadAverage())
	llmTook := measure(chats, func() time.Duration { return directLLMCall(b, llm) })
	for _, run := range []struct {
		name   string
		fields func() map[string]any
	}{
		{"new conversation", func() map[string]any { return map[string]any{"auto_memory": false} }},
		{fmt.Sprintf("continuing one of %d turns", turns), func() map[string]any {
			return map[string]any{"auto_memory": false, "conversation_id": continuing}
		}},
	} {
		for range 10 {
			timeChat(b, ada.URL, run.fields()) // warm-up
		}
		var took []time.Duration
		var perChat []map[string]time.Duration
		counts := map[string]int{}
		for range chats {
			log.take()
			took = append(took, timeChat(b, ada.URL, run.fields()))
			reqs := log.take()
			m := map[string]time.Duration{}
			for _, r := range reqs {
				m[r.kind] += r.took
				counts[r.kind]++
			}
			perChat = append(perChat, m)
		}
		fmt.Printf("%s: chat overhead p50 / p99 %.1f / %.1f ms\n", run.name, msf(pct(took, 50)-pct(llmTook, 50)), msf(pct(took, 99)-pct(llmTook, 99)))
		for _, kind := range slices.Sorted(func(yield func(string) bool) {
			for k := range counts {
				if !yield(k) {
					return
				}
			}
		}) {
			var ds []time.Duration
			for _, m := range perChat {
				ds = append(ds, m[kind])
			}
			fmt.Printf("  %-70s %4.1f a chat, p50 %7.1f ms  p90 %7.1f ms a chat\n", kind, float64(counts[kind])/chats, msf(pct(ds, 50)), msf(pct(ds, 90)))
		}
	}
}

// seedConversation writes a new conversation of n turns, a minute
// apart and ending now, with a summary of each 16 (as a chat's would be
// summarised), and returns its id: each run continues one of the same
// length.
func seedConversation(b *testing.B, store core.DocumentStore, n int) string {
	conv := core.NewConversationID()
	c := benchCorpus(n, 0, uint64(time.Now().UnixNano()))
	start := time.Now().Add(-time.Duration(n) * time.Minute)
	var docs []core.Document
	for i := range n {
		idx := i
		docs = append(docs, core.Document{ID: core.NewDocID(), Text: c.texts[i], Embedding: c.vecs[i], Meta: core.Metadata{
			Type: core.DocTurn, ConversationID: conv, TurnIndex: &idx, Role: []string{"user", "assistant"}[i%2],
			Timestamp: start.Add(time.Duration(i) * time.Minute).UTC(), Source: core.SourceChat, Scope: core.ScopeGlobal}})
		if i%16 == 15 {
			sum, at := i/16, start.Add(time.Duration(i)*time.Minute+time.Second).UTC()
			text := strings.Join(c.texts[i-3:i+1], " ")
			docs = append(docs, core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text), Meta: core.Metadata{
				Type: core.DocSummary, ConversationID: conv, TurnRange: fmt.Sprintf("%d-%d", i-15, i), SummaryIndex: &sum,
				Timestamp: at, Source: core.SourceSystem, Scope: core.ScopeGlobal}})
		}
	}
	for batch := range slices.Chunk(docs, 100) {
		if err := store.Put(context.Background(), batch...); err != nil {
			b.Fatal(err)
		}
	}
	return conv
}

// chromaLog records the requests passed to Chroma: their kind and time.
type chromaLog struct {
	mu   sync.Mutex
	reqs []chromaReq
}

type chromaReq struct {
	kind string
	took time.Duration
}

func (l *chromaLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		start := time.Now()
		next.ServeHTTP(w, r)
		l.mu.Lock()
		l.reqs = append(l.reqs, chromaReq{kind: requestKind(r, body), took: time.Since(start)})
		l.mu.Unlock()
	})
}

func (l *chromaLog) take() []chromaReq {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.reqs
	l.reqs = nil
	return out
}

var convID = regexp.MustCompile(`conv-[0-9a-f-]{36}`)

// requestKind names a request by its endpoint and the clauses it sends.
func requestKind(r *http.Request, body []byte) string {
	path := r.URL.Path
	if i := strings.LastIndex(path, "/"); i >= 0 {
		path = path[i+1:]
	}
	var fields map[string]any
	_ = json.Unmarshal(body, &fields)
	kind := r.Method + " " + path
	if ids, ok := fields["ids"].([]any); ok {
		kind += " ids"
		if len(ids) > 2 {
			kind += " (3 or more)"
		}
	}
	if w, ok := fields["where"]; ok && w != nil {
		data, _ := json.Marshal(w)
		kind += " where " + convID.ReplaceAllString(string(data), "conv-…")
	}
	if wd, ok := fields["where_document"]; ok && wd != nil {
		kind += " where_document"
	}
	if _, ok := fields["n_results"]; ok {
		kind += " nearest"
	}
	return kind
}
