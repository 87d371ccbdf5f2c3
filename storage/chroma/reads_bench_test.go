package chroma

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
)

// BenchmarkReads times the reads that must not grow with the store (Stats,
// which a metrics scrape calls; recent conversations; a listing page) on a
// real Chroma server seeded with ADA_CHROMA_BENCH_DOCS documents (20,000
// by default): nine tenths turns, twenty to a conversation, one tenth
// memories, written through Put's batched path, one a second up to now
// (ADA_CHROMA_BENCH_IDLE=8760h: up to a year ago, when List and
// RecentConversations read back over many spans).
//
//	go test -run '^$' -bench Reads -benchtime 20x ./storage/chroma
func BenchmarkReads(b *testing.B) {
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("ADA_CHROMA_BENCH_DOCS")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	s, err := Open(ctx, storagetest.StartChroma(b).URL+"?database=reads")
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	seedReads(b, s, n)
	b.Logf("seeded %d documents in %s", n, time.Since(start).Round(time.Millisecond))
	b.Run("Stats", func(b *testing.B) {
		for b.Loop() {
			if st, err := s.Stats(ctx); err != nil || st.Total != n {
				b.Fatalf("stats = %+v, %v", st, err)
			}
		}
	})
	b.Run("RecentConversations20", func(b *testing.B) {
		for b.Loop() {
			if got, err := s.RecentConversations(ctx, 20); err != nil || len(got) != 20 || got[0].Preview == "" {
				b.Fatalf("recent = %+v, %v", got, err)
			}
		}
	})
	for _, t := range []core.DocType{core.DocMemory, core.DocTurn} {
		b.Run("List20/"+string(t), func(b *testing.B) {
			for b.Loop() {
				if got, err := s.List(ctx, core.Filter{Type: t}, 20); err != nil || len(got) != 20 || got[0].Text == "" {
					b.Fatalf("list = %d, %v", len(got), err)
				}
			}
		})
	}
	benchPageReads(b, s, n)
}

// benchPageReads times the memory page's totals (Count, as BrowseMemories
// asks: exact by type, up to 1,000 with a filter kept in JSON), its
// forgotten list (after forgetting a tenth of the memories) and health's
// probe (Status) against Stats.
func benchPageReads(b *testing.B, s *Store, n int) {
	ctx := context.Background()
	mems := n / 10
	counts := []struct {
		name  string
		f     core.Filter
		limit int
		want  int
	}{
		{"Count/memories", core.Filter{Type: core.DocMemory}, 0, mems},
		{"Count/memories-last-day", core.Filter{Type: core.DocMemory, Since: time.Now().Add(-24 * time.Hour)}, 0, -1},
		{"Count/importance3-limit1000", core.Filter{Type: core.DocMemory, MinImportance: 3}, 1000, min(mems, 1000)},
		{"Count/importance5-none", core.Filter{Type: core.DocMemory, MinImportance: 5}, 1000, 0},
	}
	for _, c := range counts {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if got, err := s.Count(ctx, c.f, c.limit); err != nil || (c.want >= 0 && got != c.want) {
					b.Fatalf("count = %d, %v; want %d", got, err, c.want)
				}
			}
		})
	}
	docs, err := s.List(ctx, core.Filter{Type: core.DocMemory}, mems/10)
	if err != nil {
		b.Fatal(err)
	}
	var gone core.Change
	for _, d := range docs {
		gone.Delete = append(gone.Delete, d.ID)
		gone.History = append(gone.History, core.HistoryEntry{MemoryID: d.ID, Event: core.HistoryDelete, Time: time.Now().UTC(), Meta: d.Meta, Reason: "bench"})
	}
	if _, err := s.Apply(ctx, gone); err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("Forgotten50of%d", len(docs)), func(b *testing.B) {
		for b.Loop() {
			if got, err := s.Forgotten(ctx, 50); err != nil || len(got) != min(50, len(docs)) {
				b.Fatalf("forgotten = %d, %v", len(got), err)
			}
		}
	})
	b.Run("HealthStatus", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Status(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("HealthBefore-PingAndStats", func(b *testing.B) {
		for b.Loop() {
			if err := s.Ping(ctx); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Stats(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// seedReads writes n documents in batches of 1,000, one a second up to
// now (or up to ADA_CHROMA_BENCH_IDLE ago).
func seedReads(b *testing.B, s *Store, n int) {
	ctx := context.Background()
	// The newest now, as in a store in use; or ADA_CHROMA_BENCH_IDLE ago
	// (a Go duration), as in a store nobody wrote to since.
	idle, _ := time.ParseDuration(os.Getenv("ADA_CHROMA_BENCH_IDLE"))
	t0 := time.Now().UTC().Add(-idle - time.Duration(n)*time.Second)
	var batch []core.Document
	conv := ""
	for i := range n {
		at := t0.Add(time.Duration(i) * time.Second)
		var d core.Document
		if i%10 == 9 {
			text := fmt.Sprintf("The user mentioned fact number %d about their garden, their work and their travels.", i)
			d = core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text),
				Meta: core.Metadata{Type: core.DocMemory, Timestamp: at, Source: core.SourceChat, Scope: core.ScopeGlobal, Importance: 3}}
		} else {
			turn := (i - i/10) % 18
			if turn == 0 {
				conv = core.NewConversationID()
			}
			role := "user"
			if turn%2 == 1 {
				role = "assistant"
			}
			text := fmt.Sprintf("Turn %d of this conversation, message %d: a sentence or two of what was said, long enough to be a real chat message.", turn, i)
			d = core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text),
				Meta: core.Metadata{Type: core.DocTurn, Timestamp: at, Source: core.SourceChat, Scope: core.ScopeGlobal,
					ConversationID: conv, Role: role, TurnIndex: &turn}}
		}
		batch = append(batch, d)
		if len(batch) == 1000 || i == n-1 {
			if err := s.Put(ctx, batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
}
