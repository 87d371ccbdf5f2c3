package chroma

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
)

// BenchmarkSearchesOfAChat times, one by one, the store calls a chat makes
// on Chroma (a new conversation: its turns and summaries listed, the FAQ
// and the memories searched by vector and by keyword, the two turns
// written), and the raw Chroma requests they are made of, on a store of
// memories as BenchmarkBackends seeds it (ADA_CHROMA_BENCH_DOCS, default
// 10000). It prints each call's p50 and p90 and how many HTTP requests it
// sent; the four prompts repeat, as the chat bench's do, so that after
// the first round their keyword terms are known.
//
//	go test -run '^$' -bench SearchesOfAChat -benchtime 1x ./storage/chroma
func BenchmarkSearchesOfAChat(b *testing.B) {
	ctx := context.Background()
	srv := storagetest.StartChroma(b)
	s, w, _ := seedBench(b, srv, "chat", 1)
	sent := &requestLog{next: http.DefaultTransport}
	s.c.http.Transport = sent
	prompts := make([]string, 4)
	for i := range prompts {
		prompts[i] = strings.Join(w.Sentence(5, 12), " ")
	}
	memF := core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}}
	faqF := core.Filter{Type: core.DocFAQ}
	word := func(q string) string { ws := words(q); return stemOf(ws[len(ws)-1]) }
	calls := []struct {
		name string
		call func(q string) error
	}{
		{"List turns of a new conversation", func(string) error {
			_, err := s.List(ctx, core.Filter{Type: core.DocTurn, ConversationID: core.NewConversationID()}, 8)
			return err
		}},
		{"List summaries of a new conversation", func(string) error {
			_, err := s.List(ctx, core.Filter{Type: core.DocSummary, ConversationID: core.NewConversationID()}, 2)
			return err
		}},
		{"Search FAQ (vector)", func(q string) error {
			_, err := s.Search(ctx, core.VectorQuery{Vector: embed.HashVector(q), K: 20, Filter: faqF})
			return err
		}},
		{"KeywordSearch FAQ", func(q string) error {
			_, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: q, K: 20, Filter: faqF})
			return err
		}},
		{"Search memories (vector)", func(q string) error {
			_, err := s.Search(ctx, core.VectorQuery{Vector: embed.HashVector(q), K: 20, Filter: memF})
			return err
		}},
		{"KeywordSearch memories", func(q string) error {
			_, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: q, K: 20, Filter: memF})
			return err
		}},
		{"Put two turns", func(q string) error {
			conv := core.NewConversationID()
			return s.Put(ctx, testTurn(conv, 0, "user", q, time.Now()), testTurn(conv, 1, "assistant", "Sure, here is an answer.", time.Now()))
		}},
		{"raw: query, no where, n 20", func(q string) error {
			_, err := s.c.query(ctx, s.docs, embed.HashVector(q), 20, nil)
			return err
		}},
		{"raw: query, the memories' where, n 20", func(q string) error {
			_, err := s.c.query(ctx, s.docs, embed.HashVector(q), 20, whereOf(memF))
			return err
		}},
		{"raw: nearest 80, no where, metadata only", func(q string) error {
			_, err := s.c.nearest(ctx, s.docs, embed.HashVector(q), 80)
			return err
		}},
		{"raw: get by 2 ids", func(string) error {
			_, err := s.c.get(ctx, s.docs, getRequest{IDs: []string{core.NewDocID(), core.NewDocID()}, Include: []string{}})
			return err
		}},
		{"raw: get type=faq, ids", func(string) error {
			_, err := s.c.get(ctx, s.docs, getRequest{Where: map[string]any{"type": "faq"}, Include: []string{}})
			return err
		}},
		{"raw: get the memories' where, ids, limit 1", func(string) error {
			one := 1
			_, err := s.c.get(ctx, s.docs, getRequest{Where: whereOf(memF), Limit: &one, Include: []string{}})
			return err
		}},
		{"raw: get a word, the memories' where, ids", func(q string) error {
			_, err := s.c.get(ctx, s.docs, getRequest{Where: whereOf(memF), WhereDocument: containsAny([]string{word(q)}), Include: []string{}})
			return err
		}},
		{"raw: get a word, no where, ids", func(q string) error {
			_, err := s.c.get(ctx, s.docs, getRequest{WhereDocument: containsAny([]string{word(q)}), Include: []string{}})
			return err
		}},
		{"raw: count", func(string) error {
			_, err := s.c.count(ctx, s.docs)
			return err
		}},
	}
	var once sync.Once
	b.Run("calls", func(b *testing.B) {
		once.Do(func() {
			const rounds = 20
			fmt.Printf("\nThe store calls of a chat on Chroma 1.0, %d memories, %d rounds each, load average %s\n", s.size.n, rounds, loadAverage())
			for _, c := range calls {
				var took []time.Duration
				sent.take()
				for i := range rounds {
					start := time.Now()
					if err := c.call(prompts[i%len(prompts)]); err != nil {
						b.Fatal(err)
					}
					took = append(took, time.Since(start))
				}
				slices.Sort(took)
				fmt.Printf("%-44s p50 %7.1f ms  p90 %7.1f ms  requests %.1f a call\n", c.name,
					ms(took[len(took)/2]), ms(took[len(took)*9/10]), float64(len(sent.take()))/rounds)
			}
		})
	})
}

// seedBench opens a store in database on srv and fills it with
// ADA_CHROMA_BENCH_DOCS documents (default 10000) of Zipf-drawn words,
// every memoryEvery-th a memory and the others turns, in Puts of 100. It
// returns the store (its count known), the words drawn from and the
// documents.
func seedBench(b *testing.B, srv *storagetest.Chroma, database string, memoryEvery int) (*Store, *storagetest.Words, []core.Document) {
	n := 10000
	if v := os.Getenv("ADA_CHROMA_BENCH_DOCS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	s, err := Open(ctx, srv.URL+"?database="+database)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 12))
	w := storagetest.NewWords(rng, strings.Fields("user said coffee tea garden meeting project deadline weather music berlin paris train flight doctor birthday"), 4000)
	t0 := time.Now().Add(-time.Duration(n) * time.Second)
	docs := make([]core.Document, 0, n)
	conv := core.NewConversationID()
	for i := range n {
		text, at := strings.Join(w.Sentence(6, 18), " "), t0.Add(time.Duration(i)*time.Second)
		if i%memoryEvery == memoryEvery-1 {
			docs = append(docs, testMemory(text, at))
		} else {
			if i%10 == 0 {
				conv = core.NewConversationID()
			}
			docs = append(docs, testTurn(conv, i%10, "user", text, at))
		}
	}
	for start := 0; start < n; start += 100 {
		if err := s.Put(ctx, docs[start:min(start+100, n)]...); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.size.get(time.Now(), func() (int, error) { return s.c.count(ctx, s.docs) }); err != nil {
		b.Fatal(err)
	}
	return s, w, docs
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// loadAverage is /proc/loadavg's first three fields, or "?".
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}
