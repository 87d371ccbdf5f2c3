package metrics

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
)

// TestScrapesReuseASlowCount: a count that took a second is reused by the
// scrapes of the next 100 s (a large Chroma is not counted at each
// scrape), then read again; a fast count is read at each scrape.
func TestScrapesReuseASlowCount(t *testing.T) {
	db := openStore(t)
	c, reg := collect(t, db)
	clock, step := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), time.Second
	c.now = func() time.Time { clock = clock.Add(step); return clock } // each reading of the clock a second later
	memories := func() float64 { return value(t, reg, "ada_store_documents", map[string]string{"type": "memory"}) }

	putMemory(t, db)
	if n := memories(); n != 1 {
		t.Fatalf("first scrape: %v memories", n)
	}
	putMemory(t, db)
	if n := memories(); n != 1 {
		t.Fatalf("a scrape within 100 s of a count that took 1 s must reuse it: %v memories", n)
	}
	clock = clock.Add(100 * time.Second)
	if n := memories(); n != 2 {
		t.Fatalf("a scrape after 100 s must count again: %v memories", n)
	}
	step, clock = 0, clock.Add(101*time.Second) // a count that takes no time is not reused
	memories()
	putMemory(t, db)
	if n := memories(); n != 3 {
		t.Fatalf("a fast count must be read at each scrape: %v memories", n)
	}
}

// failingOnce fails its first count, as a store that did not answer.
type failingOnce struct {
	StatsReader
	failed bool
}

func (f *failingOnce) Stats(ctx context.Context) (core.StoreStats, error) {
	if !f.failed {
		f.failed = true
		return core.StoreStats{}, core.Errorf(core.KindUnavailable, "the store did not answer")
	}
	return f.StatsReader.Stats(ctx)
}

// TestScrapeAfterAFailedCountCountsAgain: a failed count is not reused,
// however slow: the next scrape asks the store again.
func TestScrapeAfterAFailedCountCountsAgain(t *testing.T) {
	db := openStore(t)
	putMemory(t, db)
	c, reg := collect(t, &failingOnce{StatsReader: db})
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c.now = func() time.Time { clock = clock.Add(time.Second); return clock }
	if up := value(t, reg, "ada_store_up", nil); up != 0 {
		t.Fatalf("first scrape: up = %v, want 0", up)
	}
	if n := value(t, reg, "ada_store_documents", map[string]string{"type": "memory"}); n != 1 {
		t.Fatalf("the scrape after a failed count: %v memories, want 1", n)
	}
}

// openStore opens a SQLite store in the test's directory.
func openStore(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// collect registers a store collector of stats on a registry of its own.
func collect(t *testing.T, stats StatsReader) (*storeCollector, *prometheus.Registry) {
	reg := prometheus.NewRegistry()
	c := newStoreCollector(stats, slog.New(slog.NewTextHandler(io.Discard, nil)))
	reg.MustRegister(c)
	return c, reg
}

// putMemory stores one more memory.
func putMemory(t *testing.T, db *storage.DB) {
	t.Helper()
	text := "Sam keeps bees " + core.NewDocID()
	if err := db.Put(context.Background(), core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text),
		Meta: core.Metadata{Type: core.DocMemory, Timestamp: time.Now().UTC(), Source: core.SourceChat, Scope: core.ScopeGlobal, Importance: 3}}); err != nil {
		t.Fatal(err)
	}
}
