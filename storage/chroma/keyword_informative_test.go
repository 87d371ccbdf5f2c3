package chroma

import (
	"fmt"
	"testing"

	"github.com/ada-chat/ada/core"
)

// A term SQLite leaves out of its keyword search (in a twentieth of the
// store and at least 50 documents, storage.CommonLimit) is left out of the
// ranking here too: a document holding it alone is no hit, and the others
// rank by the rare term only. In a store too small for the rule, it counts.
func TestRankLeavesOutWhatSQLiteLeavesOut(t *testing.T) {
	cands := func(n int) []core.Document { // rankBM25 reuses its argument's array
		var out []core.Document
		for i := range n {
			out = append(out, core.Document{ID: fmt.Sprintf("doc-%02d", i), Text: "caroline said hello"})
		}
		return append(out, core.Document{ID: "doc-rare", Text: "caroline went to the zanzibar support group"})
	}
	hits := rankBM25(cands(60), []string{"caroline", "zanzibar"}, 1000)
	if len(hits) != 1 || hits[0].ID != "doc-rare" {
		t.Errorf("in a store of 1000, %d hits, want doc-rare alone: caroline, in 61, is common", len(hits))
	}
	if hits := rankBM25(cands(40), []string{"caroline", "zanzibar"}, 50); len(hits) != 41 {
		t.Errorf("in a store of 50, %d hits, want all 41: no term is common in so small a store", len(hits))
	}
}
