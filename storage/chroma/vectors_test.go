package chroma

import (
	"fmt"
	"testing"

	"github.com/ada-chat/ada/core"
)

// Past heldVectorsMax, the conversations read least lately are dropped
// whole, never the one being read.
func TestHeldVectorsDropTheLeastLatelyRead(t *testing.T) {
	v := newConversationVectors()
	docsOf := func(conv string, n int) []core.Document {
		docs := make([]core.Document, n)
		for i := range docs {
			docs[i] = core.Document{ID: fmt.Sprintf("%s-%d", conv, i), Text: "text", Embedding: []float32{1}}
		}
		return docs
	}
	read := func(conv string, n int) (missing int) {
		docs := docsOf(conv, n)
		for i := range docs {
			docs[i].Embedding = nil
		}
		m := v.fill(conv, docs)
		v.keep(conv, docsOf(conv, n))
		return len(m)
	}
	half := heldVectorsMax / 2
	read("a", half)
	read("b", half)
	if m := read("a", half); m != 0 { // a read again: b is now the least lately read
		t.Fatalf("a's second read missed %d vectors", m)
	}
	read("c", 10)
	if _, ok := v.convs["b"]; ok {
		t.Error("b, read least lately, was kept past the bound")
	}
	if m := read("a", half); m != 0 || v.held != half+10 {
		t.Errorf("a missed %d vectors, %d held; want a and c kept (%d)", m, v.held, half+10)
	}
	if m := read("d", heldVectorsMax+5); m != heldVectorsMax+5 || v.convs["d"] == nil {
		t.Errorf("a conversation larger than the bound: %d missing, kept %v", m, v.convs["d"] != nil)
	}
}
