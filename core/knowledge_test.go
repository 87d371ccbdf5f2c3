package core_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
)

func newService(t *testing.T) (*core.Service, *storage.DB) {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}}, core.DefaultOptions())
	t.Cleanup(svc.Close)
	return svc, db
}

func TestSplitPersona(t *testing.T) {
	md := "# Title\nintro line\n\n## Tone\nBe kind.\n\n## Safety\nNo harm.\n## Empty\n\n"
	got := core.SplitPersona(md)
	want := []struct{ topic, text string }{{"general", "intro line"}, {"tone", "Be kind."}, {"safety", "No harm."}}
	if len(got) != len(want) {
		t.Fatalf("sections %+v", got)
	}
	for i, w := range want {
		if got[i].Topic != w.topic || got[i].Text != w.text || !core.ValidDocID(got[i].ID) {
			t.Errorf("section %d = %+v, want %+v", i, got[i], w)
		}
	}
}

func TestPersonaFileIsReplacedOnChange(t *testing.T) {
	ctx := context.Background()
	svc, db := newService(t)
	path := filepath.Join(t.TempDir(), "persona.md")
	os.WriteFile(path, []byte("## tone\nBe terse.\n## safety\nBe safe.\n"), 0o644)
	src := core.PersonaSource{Path: path}
	if err := svc.LoadPersona(ctx, src); err != nil {
		t.Fatal(err)
	}
	docs, _ := db.List(ctx, core.Filter{Type: core.DocPersona}, 100)
	if len(docs) != 2 || docs[0].Meta.Version == "" {
		t.Fatalf("persona docs %+v", docs)
	}
	if _, err := time.Parse(time.RFC3339Nano, docs[0].Meta.Version); err != nil {
		t.Fatalf("version %q is not an ISO 8601 timestamp", docs[0].Meta.Version)
	}
	os.WriteFile(path, []byte("## tone\nBe chatty.\n"), 0o644)
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(path, later, later)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go svc.WatchPersona(wctx, src, 20*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		docs, _ = db.List(ctx, core.Filter{Type: core.DocPersona}, 100)
		if len(docs) == 1 && strings.Contains(docs[0].Text, "chatty") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("persona not reloaded: %+v", docs)
}

func TestFAQFileLoadsIdempotently(t *testing.T) {
	ctx := context.Background()
	svc, db := newService(t)
	path := filepath.Join(t.TempDir(), "faq.jsonl")
	os.WriteFile(path, []byte(`{"question": "How do I reset Ada?", "answer": "Say !ada clear.", "topic": "troubleshooting"}
# comments and blank lines are allowed

{"question": "Which port?", "answer": "7000.", "topic": "api"}
`), 0o644)
	for i := 0; i < 3; i++ {
		n, err := svc.LoadFAQFile(ctx, path)
		if err != nil || n != 2 {
			t.Fatalf("load %d: n=%d err=%v", i, n, err)
		}
	}
	docs, _ := db.List(ctx, core.Filter{Type: core.DocFAQ}, 100)
	if len(docs) != 2 {
		t.Fatalf("FAQ docs after 3 loads: %d", len(docs))
	}
	os.WriteFile(path, []byte(`{"question": "broken"`), 0o644)
	if _, err := svc.LoadFAQFile(ctx, path); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("a broken line must be reported with its number: %v", err)
	}
}

func TestMemoryRankingUsesImportanceAndRecency(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	for _, in := range []core.MemoryInput{
		{Text: "the garden gate code is 1234", Importance: new(1)},
		{Text: "the garden gate code is 9876", Importance: new(5)},
	} {
		if _, err := svc.CreateMemory(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	got, err := searchMemories(ctx, svc, core.MemoryQuery{Text: "garden gate code", Limit: 5})
	if err != nil || len(got) != 2 {
		t.Fatalf("%v %v", got, err)
	}
	if got[0].Meta.Importance != 5 || *got[0].Score <= *got[1].Score {
		t.Fatalf("the important memory must rank first: %+v", got)
	}
	if *got[0].RecencyBonus <= 0.09 || *got[0].RecencyBonus > 0.1 {
		t.Fatalf("a fresh memory's recency bonus should be ~0.1: %v", *got[0].RecencyBonus)
	}
}

func TestRecencyBonusHalvesEveryHalfLife(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}, Now: func() time.Time { return now }}, core.DefaultOptions())
	defer svc.Close()
	if _, err := svc.CreateMemory(ctx, core.MemoryInput{Text: "tea with milk", Importance: new(5)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		age  time.Duration
		want float64
	}{{0, 0.1}, {7 * 24 * time.Hour, 0.05}, {14 * 24 * time.Hour, 0.025}} {
		now = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(tc.age)
		got, err := searchMemories(ctx, svc, core.MemoryQuery{Text: "tea with milk", Limit: 1})
		if err != nil || len(got) != 1 {
			t.Fatal(err)
		}
		m := got[0]
		if *m.RecencyBonus != tc.want {
			t.Errorf("age %v: bonus %v, want %v", tc.age, *m.RecencyBonus, tc.want)
		}
		// score = 0.5·similarity + 0.5·importance/5 + bonus
		want := 0.5**m.Similarity + 0.5*1 + tc.want
		if d := *m.Score - want; d > 1e-3 || d < -1e-3 {
			t.Errorf("age %v: score %v, want %v", tc.age, *m.Score, want)
		}
	}
}
