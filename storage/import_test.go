package storage

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/jsonl"
)

// TestImportIsIdempotentAndKeepsProvenance: a memory is imported before
// the turns it was learned from (the order of an export need not be that of
// provenance), the same batch again writes nothing, and once its sources
// are imported too, deleting them deletes the memory as in any store.
func TestImportIsIdempotentAndKeepsProvenance(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	conv := core.NewConversationID()
	at := time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.UTC)
	t1, t2 := turnDoc(conv, "", 0, "I live in Paris", at), turnDoc(conv, "", 1, "Noted", at)
	m := memoryDoc("Sam lives in Paris", core.ScopeGlobal, 3)
	m.Meta.SourceIDs = []string{t1.ID, t2.ID}
	h := core.HistoryEntry{MemoryID: m.ID, Event: core.HistoryCreate, Time: at, Text: m.Text, Meta: m.Meta}

	res, err := db.Import(ctx, []core.Document{m}, []core.HistoryEntry{h})
	if err != nil || res != (ImportResult{Documents: 1, History: 1}) {
		t.Fatalf("first import: %+v, %v", res, err)
	}
	res, err = db.Import(ctx, []core.Document{m, t1, t2}, []core.HistoryEntry{h})
	if err != nil || res != (ImportResult{Documents: 2, DocumentsSkipped: 1, HistorySkipped: 1}) {
		t.Fatalf("second import: %+v, %v", res, err)
	}
	if hist, err := db.History(ctx, m.ID); err != nil || len(hist) != 1 || !hist[0].Time.Equal(at) {
		t.Fatalf("history %+v, %v", hist, err)
	}
	stored, err := db.Stored(ctx, []string{m.ID, t1.ID, core.NewDocID()})
	if err != nil || len(stored) != 2 || !stored[m.ID] || !stored[t1.ID] {
		t.Fatalf("Stored: %v, %v", stored, err)
	}
	if _, err := db.DeleteWhere(ctx, core.Filter{Type: core.DocTurn, ConversationID: conv}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Get(ctx, m.ID); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("the memory outlived its imported sources: %v", err)
	}
}

// An import checks each document's schema once: the export's reader
// remembers its checks in the store's memo (ShareSchemaMemo), where the
// store's own check of the same document finds them. Turns make the case:
// their metadata differ one from another (the turn's index), so a memo of
// its own would have the store check every one again.
func TestImportChecksEachDocumentOnce(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	conv := core.NewConversationID()
	var buf bytes.Buffer
	w, err := jsonl.NewWriter(&buf, jsonl.Header{Embedder: embed.HashName, Dimensions: core.Dim, Vectors: true, Documents: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		text := []string{"hello", "how are you", "fine"}[i]
		d := core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text),
			Meta: core.Metadata{Type: core.DocTurn, Timestamp: time.Now().UTC(), Source: core.SourceChat, Scope: core.ScopeGlobal,
				Role: "user", TurnIndex: &i, ConversationID: conv}}
		if err := w.WriteDocument(d); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	r, err := jsonl.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	r.ShareSchemaMemo(db.SchemaMemo())
	var docs []core.Document
	for range 3 {
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, *rec.Document)
	}
	if n := db.SchemaMemo().Len(); n != 3 {
		t.Fatalf("the store's memo holds %d checks after the reader's, want 3", n)
	}
	if res, err := db.Import(ctx, docs, nil); err != nil || res.Documents != 3 {
		t.Fatalf("import: %+v, %v", res, err)
	}
	if n := db.SchemaMemo().Len(); n != 3 {
		t.Fatalf("the store's memo holds %d checks after the import, want 3 (none made again)", n)
	}
}
