package chroma

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// Past heldVectorsMax, the conversations read least lately are dropped
// whole, never the one being read.
func TestHeldVectorsDropTheLeastLatelyRead(t *testing.T) {
	v := newConversationVectors()
	now := time.Now()
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
		m := v.fill(conv, docs, now)
		v.keep(conv, docsOf(conv, n), v.deletionCount())
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

// What is held goes when no chat has read its conversation for heldFor,
// and a read that began before one of this Ada's deletions keeps
// nothing: it may hold what was deleted.
func TestHeldVectorsGoWhenIdleOrDeletedMeanwhile(t *testing.T) {
	v := newConversationVectors()
	now := time.Now()
	doc := func(id string) []core.Document {
		return []core.Document{{ID: id, Text: "text", Embedding: []float32{1}}}
	}
	v.fill("a", []core.Document{{ID: "a1", Text: "text"}}, now)
	v.keep("a", doc("a1"), v.deletionCount())
	if v.held != 1 {
		t.Fatalf("%d held, want 1", v.held)
	}
	v.fill("b", []core.Document{{ID: "b1", Text: "text"}}, now.Add(v.idleFor))
	if _, ok := v.convs["a"]; ok || v.held != 0 {
		t.Errorf("a conversation no chat read for %v is still held (%d vectors)", heldFor, v.held)
	}
	began := v.deletionCount()
	v.forget([]string{"b1"}) // deleted while the read of b fetched its vector
	v.fill("b", []core.Document{{ID: "b1", Text: "text"}}, now.Add(v.idleFor))
	v.keep("b", doc("b1"), began)
	if v.held != 0 {
		t.Errorf("a read that began before a deletion kept %d vectors, want none", v.held)
	}
}

// While vectors are held a timer sweeps the idle conversations: an Ada
// no chat reaches any more holds nothing after idleFor. Close drops
// everything.
func TestHeldVectorsSweptWhenIdle(t *testing.T) {
	v := newConversationVectors()
	v.idleFor = 20 * time.Millisecond
	held := func() int {
		v.mu.Lock()
		defer v.mu.Unlock()
		return v.held
	}
	v.fill("a", []core.Document{{ID: "a1", Text: "text"}}, time.Now())
	v.keep("a", []core.Document{{ID: "a1", Text: "text", Embedding: []float32{1}}}, v.deletionCount())
	if held() != 1 {
		t.Fatalf("%d held, want 1", held())
	}
	deadline := time.Now().Add(10 * time.Second)
	for held() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("an idle conversation's vectors were not swept")
		}
		runtime.Gosched()
	}
	v.idleFor = time.Hour
	v.fill("b", []core.Document{{ID: "b1", Text: "text"}}, time.Now())
	v.keep("b", []core.Document{{ID: "b1", Text: "text", Embedding: []float32{1}}}, v.deletionCount())
	v.close()
	if held() != 0 || len(v.convs) != 0 {
		t.Errorf("%d vectors held after close", held())
	}
}
