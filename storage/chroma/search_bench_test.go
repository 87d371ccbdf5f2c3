package chroma

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
)

// BenchmarkSearch times the keyword search and the two halves of a hybrid
// memory search (keyword then vector, filter type=memory) on a real Chroma
// server holding 10,000 documents, nine tenths turns and one tenth
// memories of Zipf-drawn words, as BenchmarkBackends' corpus; half the
// queries are a memory's words with a fifth replaced. It reports p50 and
// p95 per search.
//
//	go test -run '^$' -bench Search -benchtime 100x ./storage/chroma
func BenchmarkSearch(b *testing.B) {
	const n, nq = 10000, 100
	ctx := context.Background()
	s, err := Open(ctx, storagetest.StartChroma(b).URL+"?database=search")
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 12))
	w := storagetest.NewWords(rng, strings.Fields("user said coffee tea garden meeting project deadline weather music berlin paris train flight doctor birthday"), 4000)
	t0 := time.Now().Add(-n * time.Second)
	var memories []string
	conv := core.NewConversationID()
	batch := make([]core.Document, 0, 1000)
	for i := range n {
		text := strings.Join(w.Sentence(6, 18), " ")
		m := core.Metadata{Type: core.DocMemory, Timestamp: t0.Add(time.Duration(i) * time.Second), Source: core.SourceChat, Scope: core.ScopeGlobal, Importance: 3}
		if i%10 == 9 {
			memories = append(memories, text)
		} else {
			turn := i % 10
			m.Type, m.ConversationID, m.Role, m.TurnIndex, m.Importance = core.DocTurn, conv, "user", &turn, 0
		}
		if i%10 == 0 {
			conv = core.NewConversationID()
		}
		batch = append(batch, core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text), Meta: m})
		if len(batch) == cap(batch) {
			if err := s.Put(ctx, batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	queries := make([]string, nq)
	for i := range queries {
		words := w.Sentence(3, 10)
		if i%2 == 0 {
			words = strings.Fields(memories[rng.IntN(len(memories))])
			for range 1 + len(words)/5 {
				words[rng.IntN(len(words))] = w.Word()
			}
		}
		queries[i] = strings.Join(words, " ")
	}
	f := core.Filter{Type: core.DocMemory}
	b.Run("Keyword", func(b *testing.B) {
		timeSearches(b, queries, func(q string) error {
			_, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: q, K: 10, Filter: f})
			return err
		})
	})
	b.Run("Hybrid", func(b *testing.B) {
		timeSearches(b, queries, func(q string) error {
			if _, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: q, K: 10, Filter: f}); err != nil {
				return err
			}
			_, err := s.Search(ctx, core.VectorQuery{Vector: embed.HashVector(q), K: 10, Filter: f})
			return err
		})
	})
}

// timeSearches runs search over the queries in turn and reports the p50
// and p95 of its durations.
func timeSearches(b *testing.B, queries []string, search func(string) error) {
	var took []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if err := search(queries[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	at := func(p float64) float64 { return float64(took[int(p*float64(len(took)-1))].Microseconds()) / 1000 }
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.95), "p95-ms")
}
