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
