package main

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/jsonl"
	"github.com/ada-chat/ada/storage/storagetest"
	"github.com/ada-chat/ada/storage/vecindex"
)

// scaleEntity holds the entity scope of the scale bench: one memory in
// scaleEntityEvery is in it, the rest are global.
const (
	scaleEntity      = "bench"
	scaleEntityEvery = 100
)

// scaleData is the scale bench's store: n memories of 8 to 16 words drawn
// with a Zipf law from a vocabulary of 30,000 (common English words
// first), so that most words are rare, as in a real room's history. Only
// the texts are kept (80 MB at 1M): vectors are made again when needed,
// so that a million of them (3 GB) never sit in memory.
type scaleData struct {
	texts []string
	// queries are made of stored memories' words (a stored memory with a
	// fifth of its words replaced), over the whole store and within the
	// entity scope.
	queries, scoped []string
}

func newScaleData(n, nq int, seed uint64) *scaleData {
	rng := rand.New(rand.NewPCG(seed, 39))
	w := storagetest.NewWords(rng, benchWords, 30000)
	d := &scaleData{texts: make([]string, n)}
	for i := range d.texts {
		d.texts[i] = strings.Join(w.Sentence(8, 16), " ")
	}
	reword := func(i int) string {
		words := strings.Fields(d.texts[i])
		for range 1 + len(words)/5 {
			words[rng.IntN(len(words))] = w.Word()
		}
		return strings.Join(words, " ")
	}
	for range nq {
		d.queries = append(d.queries, reword(rng.IntN(n)))
		d.scoped = append(d.scoped, reword(rng.IntN((n+scaleEntityEvery-1)/scaleEntityEvery)*scaleEntityEvery))
	}
	return d
}

func scaleID(i int) string { return fmt.Sprintf("%s%012d", benchIDPrefix, i) }

func inEntity(i int) bool { return i%scaleEntityEvery == 0 }

// doc is memory i as Ada stores it, without its vector.
func (d *scaleData) doc(i int) core.Document {
	m := core.Metadata{Type: core.DocMemory, Timestamp: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second),
		Source: core.SourceImport, Scope: core.ScopeGlobal, Importance: 1 + i%5}
	if inEntity(i) {
		m.Scope, m.Entity = core.EntityScope(scaleEntity), scaleEntity
	}
	return core.Document{ID: scaleID(i), Text: d.texts[i], Meta: m}
}

// writeExport writes the first n memories as an export without vectors,
// which ada import embeds with the configured (hash) embedder.
func (d *scaleData) writeExport(tb testing.TB, path string, n int) {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w, err := jsonl.NewWriter(f, jsonl.Header{ExportedAt: time.Now().UTC(), Embedder: embed.HashName, Dimensions: core.Dim, Documents: n})
	if err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		if err := w.WriteDocument(d.doc(i)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// exactKth is the exact k-th nearest distance of each query among the
// first n memories (scoped: the entity's only), by a scan of every vector,
// made one at a time.
func (d *scaleData) exactKth(n, k int, queries []string, scoped bool) []float64 {
	qv := make([][]float32, len(queries))
	hs := make([]maxHeap, len(queries))
	for i, q := range queries {
		qv[i] = embed.HashVector(q)
	}
	for i := range n {
		if scoped && !inEntity(i) {
			continue
		}
		v := embed.HashVector(d.texts[i])
		for qi := range qv {
			dist := vecindex.CosineDistance(qv[qi], v)
			if hs[qi].Len() < k {
				heap.Push(&hs[qi], dist)
			} else if dist < hs[qi][0] {
				hs[qi][0] = dist
				heap.Fix(&hs[qi], 0)
			}
		}
	}
	out := make([]float64, len(queries))
	for i := range hs {
		out[i] = hs[i][0]
	}
	return out
}

// maxHeap keeps the k smallest distances, the largest on top.
type maxHeap []float64

func (h maxHeap) Len() int           { return len(h) }
func (h maxHeap) Less(i, j int) bool { return h[i] > h[j] }
func (h maxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *maxHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *maxHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// cosineToText is the cosine distance from q to text's vector.
func cosineToText(q []float32, text string) float64 {
	return vecindex.CosineDistance(q, embed.HashVector(text))
}
