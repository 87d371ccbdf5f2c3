package metrics

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

// nopStore answers every read at once, so the benchmark measures the
// decorator alone.
type nopStore struct{ core.Store }

func (nopStore) Search(context.Context, core.VectorQuery) ([]core.Hit, error) { return nil, nil }
func (nopStore) KeywordSearch(context.Context, core.KeywordQuery) ([]core.KeywordHit, error) {
	return nil, nil
}
func (nopStore) List(context.Context, core.Filter, int) ([]core.Document, error) { return nil, nil }
func (nopStore) Put(context.Context, ...core.Document) error                     { return nil }

// BenchmarkChatsWorthOfCounting is what the metrics add to one chat: the
// HTTP request, the chat with five tokens, one LLM call and the store calls
// of a chat in hybrid mode (a vector and a keyword search for memories, FAQs
// and turns, the recent window, storing both turns), around calls that
// cost nothing.
func BenchmarkChatsWorthOfCounting(b *testing.B) {
	m := New(prometheus.NewRegistry(), "bench")
	d := core.Deps{Store: nopStore{}, Embedder: embed.Hash{}, LLM: fakeLLM{}}
	m.Wrap(&d)
	ctx := context.Background()
	chat := m.Chat("api", func(_ context.Context, _ core.ChatRequest, emit func(core.Event) error) (core.ChatResult, error) {
		for range 5 {
			_ = emit(core.Event{Type: core.EventToken, Content: "x"})
		}
		return core.ChatResult{}, nil
	})
	req := core.LLMRequest{Messages: []core.Message{{Role: "user", Content: "hello"}}}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = chat(ctx, core.ChatRequest{}, func(core.Event) error { return nil })
		_ = d.LLM.Chat(ctx, req, func(core.LLMEvent) error { return nil })
		for _, t := range []core.DocType{core.DocMemory, core.DocFAQ, core.DocTurn} {
			_, _ = d.Store.Search(ctx, core.VectorQuery{Filter: core.Filter{Type: t}})
			_, _ = d.Store.KeywordSearch(ctx, core.KeywordQuery{Filter: core.Filter{Type: t}})
		}
		_, _ = d.Store.List(ctx, core.Filter{Type: core.DocTurn}, 8)
		_ = d.Store.Put(ctx)
		m.Request("/v1/chat", "POST", 200, time.Millisecond)
	}
}
