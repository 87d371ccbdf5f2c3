package chroma

import (
	"testing"
	"time"
)

// A write forgets the documents of the rare terms its texts hold, in any
// case, and nothing else: a common term stays common, another rare term
// keeps its documents; a write of many texts forgets every verdict.
func TestTermCacheForgetsWhatAWriteHolds(t *testing.T) {
	var c termCache
	now := time.Now()
	c.set("", []string{"zanzibar", "coffee", "kettle"}, [][]string{{"doc-1"}, nil, {"doc-2"}}, now)
	c.written([]string{"a ZANZIBAR trip"})
	if _, _, known := c.verdict("", "zanzibar", now); known {
		t.Error("zanzibar's documents should be forgotten after a write holding it")
	}
	if common, _, known := c.verdict("", "coffee", now); !common || !known {
		t.Error("coffee should stay common")
	}
	if _, ids, known := c.verdict("", "kettle", now); !known || len(ids) != 1 {
		t.Errorf("kettle's documents = %v (%v), want kept", ids, known)
	}
	if _, _, known := c.verdict("", "kettle", now.Add(termIDsFor)); known {
		t.Error("a rare term's documents should be believed for termIDsFor only")
	}
	if _, _, known := c.verdict("", "coffee", now.Add(termIDsFor)); !known {
		t.Error("a common verdict should be believed for termVerdictFor")
	}
	c.written(make([]string, writtenScanMax+1))
	if _, _, known := c.verdict("", "coffee", now); known {
		t.Error("a write of many texts should forget every verdict")
	}
}
