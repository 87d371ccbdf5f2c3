package jsonl

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

// BenchmarkReadDocument reads 1,000 documents a round with their vectors: the cost of a
// line in ada import before the store.
func BenchmarkReadDocument(b *testing.B) {
	readEach(b, func(r *Reader) error { _, err := r.Next(); return err })
}

// BenchmarkReadKind reads the same 1,000 documents for their kinds only:
// the cost of a line in the count ada import makes of a FILE before it
// writes anything.
func BenchmarkReadKind(b *testing.B) {
	readEach(b, func(r *Reader) error { _, err := r.NextKind(); return err })
}

// readEach reads documentLines with next, line by line, a round at a time.
func readEach(b *testing.B, next func(*Reader) error) {
	data := documentLines(b)
	b.ResetTimer()
	for range b.N {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for {
			if err := next(r); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/doc")
}

// documentLines is an export of 1,000 documents with their vectors.
func documentLines(b *testing.B) []byte {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Embedder: "hash:v1", Dimensions: core.Dim, Vectors: true})
	if err != nil {
		b.Fatal(err)
	}
	text := "Sam's bike is a red Peugeot"
	d := core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text),
		Meta: core.Metadata{Type: core.DocMemory, Timestamp: time.Now(), Source: core.SourceChat, Scope: core.ScopeGlobal, Importance: 3}}
	for range 1000 {
		w.WriteDocument(d)
	}
	w.Flush()
	return buf.Bytes()
}
