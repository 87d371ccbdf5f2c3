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
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	reg := prometheus.NewRegistry()
	c := newStoreCollector(db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	reg.MustRegister(c)
	clock, step := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), time.Second
	c.now = func() time.Time { clock = clock.Add(step); return clock } // each reading of the clock a second later
	put := func() {
		t.Helper()
		text := "Sam keeps bees " + core.NewDocID()
		if err := db.Put(ctx, core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text),
			Meta: core.Metadata{Type: core.DocMemory, Timestamp: time.Now().UTC(), Source: core.SourceChat, Scope: core.ScopeGlobal, Importance: 3}}); err != nil {
			t.Fatal(err)
		}
	}
	memories := func() float64 { return value(t, reg, "ada_store_documents", map[string]string{"type": "memory"}) }

	put()
	if n := memories(); n != 1 {
		t.Fatalf("first scrape: %v memories", n)
	}
	put()
	if n := memories(); n != 1 {
		t.Fatalf("a scrape within 100 s of a count that took 1 s must reuse it: %v memories", n)
	}
	clock = clock.Add(100 * time.Second)
	if n := memories(); n != 2 {
		t.Fatalf("a scrape after 100 s must count again: %v memories", n)
	}
	step, clock = 0, clock.Add(101*time.Second) // a count that takes no time is not reused
	memories()
	put()
	if n := memories(); n != 3 {
		t.Fatalf("a fast count must be read at each scrape: %v memories", n)
	}
}
