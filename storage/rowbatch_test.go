package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

// The keyword and code rows written several to a statement (rowbatch.go)
// end up exactly as one a statement did: a batch of every size the
// statements take, with a document replaced by a later one of the same
// batch (its rows must be written before its deletion reads them), then
// Replace and Import, leaves the keyword index equal to the documents
// (FTS5's integrity check) and the code index equal to documents_codes.
func TestBatchedRowsMatchTheDocuments(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	queries := []string{"apples", "replaced text"}
	var docs []core.Document
	for i := range 64 + 16 + 4 + 2 {
		docs = append(docs, memoryDoc(fmt.Sprintf("note %d about apples and pears %d", i, i%7), core.ScopeGlobal, 2))
	}
	again := docs[70]
	again.Text, again.Embedding = "replaced text of note seventy", embed.HashVector("replaced text of note seventy")
	if err := db.Put(ctx, append(docs, again, memoryDoc("after the replacement", core.ScopeGlobal, 1))...); err != nil {
		t.Fatal(err)
	}
	checkKeywordIndex(t, db, "a batch with a replacement")
	checkIndex(t, db, queries)
	got, err := db.Get(ctx, again.ID)
	if err != nil || got.Text != again.Text {
		t.Fatalf("the replaced document: %q, %v", got.Text, err)
	}
	if err := db.Replace(ctx, core.Filter{Type: core.DocMemory}, docs[:21]...); err != nil {
		t.Fatal(err)
	}
	checkKeywordIndex(t, db, "Replace")
	checkIndex(t, db, queries)
	if _, err := db.Import(ctx, docs[15:40], nil); err != nil {
		t.Fatal(err)
	}
	checkKeywordIndex(t, db, "Import")
	checkIndex(t, db, queries)
}
