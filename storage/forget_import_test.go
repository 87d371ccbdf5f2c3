package storage

import (
	"context"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
)

// An export written before issue 36 quoted the newer memory's text in a
// correction's reason and kept the older version's words after the newer
// memory was deleted. Read back and imported, no reason quotes a memory
// and the forgotten correction's older version keeps no words.
func TestImportOfAnOldExportKeepsNoForgottenWords(t *testing.T) {
	const (
		old   = "doc-00000000-0000-4000-8000-0000000000a1"
		newer = "doc-00000000-0000-4000-8000-0000000000a2"
	)
	export := `{"kind":"header","format":"ada-export","version":1,"embedder":"hash:v1","dimensions":768,"vectors":false}
{"kind":"history","memory_id":"` + old + `","event":"create","timestamp":"2026-01-01T00:00:00Z","text":"Sam's pin is 1111","metadata":{"type":"memory","tags":["pin"]}}
{"kind":"history","memory_id":"` + newer + `","event":"create","timestamp":"2026-01-01T00:01:00Z","text":"Sam's pin is 2222","metadata":{"type":"memory"}}
{"kind":"history","memory_id":"` + old + `","event":"retire","timestamp":"2026-01-01T00:01:00Z","text":"Sam's pin is 1111","metadata":{"type":"memory","tags":["pin"]},"reason":"replaced by ` + newer + `: Sam's pin is 2222"}
{"kind":"history","memory_id":"` + newer + `","event":"delete","timestamp":"2026-01-01T00:02:00Z","text":"","metadata":{"type":"memory"},"reason":"deleted on request"}
`
	_, history := readExport(t, strings.NewReader(export))
	db := openTestDB(t)
	if _, err := db.Import(context.Background(), nil, history); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{old, newer} {
		h, err := db.History(context.Background(), id)
		if err != nil || len(h) != 2 {
			t.Fatalf("history of %s: %+v %v", id, h, err)
		}
		for _, e := range h {
			if e.Text != "" || len(e.Meta.Tags) != 0 || strings.Contains(e.Reason, "pin") {
				t.Errorf("an imported entry keeps forgotten words: %+v", e)
			}
		}
	}
	if h, _ := db.History(context.Background(), old); h[1].Reason != core.RetireReason(newer) {
		t.Errorf("the retire reason = %q, want %q", h[1].Reason, core.RetireReason(newer))
	}
}
