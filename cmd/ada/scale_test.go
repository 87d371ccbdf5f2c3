package main

import (
	"testing"
)

// TestScaleTable runs the scale bench's code (BenchmarkScale) on 2,000
// memories, SQLite and a real Chroma server, and checks what its table
// must hold whatever the machine's speed: every memory imported, scoped
// searches returning only the scope's memories (checked on each answer),
// results found, recall against the exact scan, a memory found by its own
// text, and every measure taken.
func TestScaleTable(t *testing.T) {
	counts := map[bool]scaleCounts{false: {searches: 20, ownText: 20, chats: 5}, true: {searches: 10, ownText: 10, chats: 3}}
	rows := runScale(t, []int{2000}, 2000, 20, counts)
	printScale(rows)
	if len(rows) == 0 || rows[0].backend != "SQLite" {
		t.Fatalf("rows %+v: want SQLite's first", rows)
	}
	for _, r := range rows {
		c := counts[r.backend != "SQLite"]
		if r.imported != r.n {
			t.Errorf("%s: ada import stored %d of %d memories", r.backend, r.imported, r.n)
		}
		if len(r.search) != c.searches || len(r.scoped) != c.searches || len(r.chat) != c.chats || len(r.llm) != c.chats {
			t.Errorf("%s: %d, %d searches and %d, %d chats timed, want %d and %d", r.backend, len(r.search), len(r.scoped), len(r.chat), len(r.llm), c.searches, c.chats)
		}
		// Every query is made of a stored memory's words: each finds ten.
		if r.globalHits != 10*(c.searches+10) || r.scopedHits != 10*(c.searches+10) {
			t.Errorf("%s: %d and %d results of %d searches (10 warm-up ones included), want 10 each", r.backend, r.globalHits, r.scopedHits, c.searches+10)
		}
		if r.recall < 0.9 || r.recallScoped < 0.9 || r.recall > 1 || r.recallScoped > 1 {
			t.Errorf("%s: recall@10 %.3f, in scope %.3f: want 0.9..1 at 2,000", r.backend, r.recall, r.recallScoped)
		}
		if r.ownAsked != c.ownText || r.ownFound < r.ownAsked*95/100 {
			t.Errorf("%s: own text found %d of %d", r.backend, r.ownFound, r.ownAsked)
		}
		if r.healthy <= 0 || r.indexReady < r.healthy || r.rss <= 0 || r.peakRSS < r.rss || r.importTime <= 0 {
			t.Errorf("%s: healthy %v, index ready %v, RSS %d (peak %d), import %v: a measure is missing", r.backend, r.healthy, r.indexReady, r.rss, r.peakRSS, r.importTime)
		}
		if (r.backend == "SQLite") != (r.insertAda > 0 && r.insertVec0 > 0) {
			t.Errorf("%s: insert rates %.0f, %.0f: want them on SQLite's row only", r.backend, r.insertAda, r.insertVec0)
		}
	}
}
