package storage

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/jsonl"
	"github.com/ada-chat/ada/storage/storagetest"
)

// An export of a SQLite store, imported into another and exported again,
// gives the same lines to the byte, and the vectors the same bits as were
// stored: negative zeros, subnormals and the largest float32s included.
func TestExportImportExportIsByteIdentical(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(13, 14))
	vec := storagetest.EveryKindOfFloat32(rng)
	odd := memoryDoc("a vector of every kind of float32", core.ScopeGlobal, 3)
	odd.Embedding = vec
	plain := memoryDoc("Sam lives in Paris", core.ScopeGlobal, 4)
	hist := []core.HistoryEntry{
		{MemoryID: odd.ID, Event: core.HistoryCreate, Time: odd.Meta.Timestamp, Text: odd.Text, Meta: odd.Meta},
		{MemoryID: plain.ID, Event: core.HistoryCreate, Time: plain.Meta.Timestamp, Text: plain.Text, Meta: plain.Meta},
	}
	src := filepath.Join(t.TempDir(), "ada.db")
	db, err := Open(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Import(ctx, []core.Document{odd, plain}, hist); err != nil {
		t.Fatal(err)
	}
	db.Close()

	first, stored := exportLines(t, src)
	for i, x := range stored[odd.ID] {
		if math.Float32bits(x) != math.Float32bits(vec[i]) {
			t.Fatalf("stored embedding[%d] = %v (%08x), imported %v (%08x)", i, x, math.Float32bits(x), vec[i], math.Float32bits(vec[i]))
		}
	}

	dst := filepath.Join(t.TempDir(), "ada.db")
	db, err = Open(ctx, dst)
	if err != nil {
		t.Fatal(err)
	}
	docs, entries := readExport(t, bytes.NewReader(first))
	if _, err := db.Import(ctx, docs, entries); err != nil {
		t.Fatal(err)
	}
	db.Close()

	second, _ := exportLines(t, dst)
	// The header holds the time of the export; every line after it is
	// compared.
	_, firstLines, _ := bytes.Cut(first, []byte("\n"))
	_, secondLines, _ := bytes.Cut(second, []byte("\n"))
	if len(firstLines) == 0 || !bytes.Equal(firstLines, secondLines) {
		t.Fatalf("the second export differs from the first:\n%s\n---\n%s", first, second)
	}
}

// exportLines exports the store at path with vectors as ada export does
// (a snapshot through a jsonl.Writer) and returns the export and the
// vectors read, by document id.
func exportLines(t *testing.T, path string) ([]byte, map[string][]float32) {
	t.Helper()
	ctx := context.Background()
	snap, err := OpenSnapshot(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	var buf bytes.Buffer
	w, err := jsonl.NewWriter(&buf, jsonl.Header{Embedder: "hash:v1", Dimensions: core.Dim, Vectors: true})
	if err != nil {
		t.Fatal(err)
	}
	vecs := map[string][]float32{}
	err = snap.EachDocument(ctx, true, func(d core.Document) error {
		vecs[d.ID] = d.Embedding
		return w.WriteDocument(d)
	})
	if err == nil {
		err = snap.EachHistory(ctx, w.WriteHistory)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), vecs
}

// readExport reads an export's documents and history entries.
func readExport(t *testing.T, in io.Reader) ([]core.Document, []core.HistoryEntry) {
	t.Helper()
	r, err := jsonl.NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	var docs []core.Document
	var entries []core.HistoryEntry
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return docs, entries
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Document != nil {
			docs = append(docs, *rec.Document)
		} else {
			entries = append(entries, *rec.History)
		}
	}
}
