package chroma

import (
	"slices"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// A write adds its documents to the lists of the rare terms they hold (in
// a form $contains finds) within the whole store and within each where
// clause whose conditions they meet, makes a term common past the most,
// and makes the lists within a clause of unknown conditions stale; a common term
// stays common, the lists of terms it does not hold stay as they were; a
// write of many documents forgets every verdict.
func TestTermCacheFollowsWrites(t *testing.T) {
	var c termCache
	now := time.Now()
	described := func(f core.Filter) string {
		scope := termScope(whereOf(f))
		conds, ok := whereConds(f)
		if !ok {
			t.Fatalf("%+v: its where clause does not hold it exactly", f)
		}
		c.describe(scope, conds)
		return scope
	}
	memories, faqs := described(core.Filter{Type: core.DocMemory}), described(core.Filter{Type: core.DocFAQ})
	odd := termScope(map[string]any{"type": map[string]any{"$ne": "faq"}}) // no filter's: its conditions unknown
	c.set(wholeStore, []string{"zanzibar", "coffee", "kettle"}, [][]string{{"doc-1"}, nil, {"doc-2", "doc-3"}}, 0, now)
	for _, scope := range []string{memories, faqs, odd} {
		c.set(scope, []string{"zanzibar"}, [][]string{{"doc-1"}}, 0, now)
	}
	memory := testMemory("a Zanzibar trip, a kettle", now)
	memory.ID = "doc-4"
	c.written([]core.Document{memory}, 2, now)
	if common, ids, fresh, known := c.verdict(wholeStore, "zanzibar", now); common || !fresh || !known || !slices.Equal(ids, []string{"doc-1", "doc-4"}) {
		t.Errorf("zanzibar in the store: %v %v %v %v, want doc-1 and the new doc-4", common, ids, fresh, known)
	}
	if _, ids, fresh, known := c.verdict(memories, "zanzibar", now); !fresh || !known || !slices.Equal(ids, []string{"doc-1", "doc-4"}) {
		t.Errorf("zanzibar among memories: %v, fresh %v; want doc-1 and the new memory, fresh", ids, fresh)
	}
	if _, ids, fresh, known := c.verdict(faqs, "zanzibar", now); !fresh || !known || !slices.Equal(ids, []string{"doc-1"}) {
		t.Errorf("zanzibar among FAQs: %v, fresh %v; want doc-1 alone, fresh (a memory is no FAQ)", ids, fresh)
	}
	if _, _, fresh, known := c.verdict(odd, "zanzibar", now); fresh || !known {
		t.Error("zanzibar within a clause of unknown conditions should be rare and stale")
	}
	if common, _, _, known := c.verdict(wholeStore, "kettle", now); !common || !known {
		t.Error("kettle, in 3 documents past the most of 2, should be common")
	}
	if common, _, _, known := c.verdict(wholeStore, "coffee", now); !common || !known {
		t.Error("coffee should stay common")
	}
	if _, _, fresh, known := c.verdict(wholeStore, "zanzibar", now.Add(termIDsFor)); fresh || !known {
		t.Error("a rare term's documents should be fresh for termIDsFor only, its verdict longer")
	}
	c.written(make([]core.Document, writtenScanMax+1), 2, now)
	if _, _, _, known := c.verdict(wholeStore, "coffee", now); known {
		t.Error("a write of many documents should forget every verdict")
	}
}

// A count that began before a write of this process may lack its
// document: its lists are recorded stale (asked again), its verdicts kept.
func TestTermCacheCountAcrossAWrite(t *testing.T) {
	var c termCache
	now := time.Now()
	since := c.writeCount() // the count begins
	c.written([]core.Document{{ID: "doc-9", Text: "zanzibar"}}, 10, now)
	c.set(wholeStore, []string{"zanzibar"}, [][]string{{"doc-1"}}, since, now) // it ends without doc-9
	if common, _, fresh, known := c.verdict(wholeStore, "zanzibar", now); common || fresh || !known {
		t.Errorf("zanzibar counted across a write: common %v, fresh %v, known %v; want rare, stale, known", common, fresh, known)
	}
	c.set(wholeStore, []string{"zanzibar"}, [][]string{{"doc-1", "doc-9"}}, c.writeCount(), now)
	if _, ids, fresh, _ := c.verdict(wholeStore, "zanzibar", now); !fresh || len(ids) != 2 {
		t.Errorf("counted after the write: fresh %v, %v; want both, fresh", fresh, ids)
	}
}
