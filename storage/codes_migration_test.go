package storage

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/vecindex"
)

// A store of schema version 5 kept its codes in the documents_vec vec0
// table. Migration 6 moves them to documents_codes: the store opens with
// every code, type, scope and conversation as they were, searches find
// every document, and documents_vec is gone. Migration 7 drops the keyword
// index's insert trigger; old and new documents are found by keyword.
func TestMigrationMovesCodesOutOfVec0(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ada.db")
	old := storeAtVersion(t, dsn(path, false, SyncFull), 5)
	// Documents written as version 5 wrote them (storage/documents.go at
	// that version): memories, global and of a conversation.
	conv := core.NewConversationID()
	docs := make([]core.Document, 40)
	for i := range docs {
		docs[i] = memoryDoc(fmt.Sprintf("old memory %d about the garden and the %d cats", i, i), core.ScopeGlobal, 3)
		if i%2 == 1 {
			docs[i].Meta.Scope, docs[i].Meta.ConversationID = "entity:sam", conv
		}
	}
	enc := encodeAll(t, docs)
	for i, d := range enc {
		res, err := old.ExecContext(ctx, insertDocumentSQL, d.ID, string(d.Meta.Type), d.Meta.Scope, nullable(d.Meta.ConversationID),
			nil, d.Meta.Timestamp.UnixNano(), d.Text, d.meta, d.embedding)
		if err != nil {
			t.Fatal(err)
		}
		rowid, _ := res.LastInsertId()
		if _, err := old.ExecContext(ctx, `INSERT INTO documents_vec (rowid, shard, doc_type, scope, conversation_id, embedding)
			VALUES (?, ?, ?, ?, ?, vec_bit(?))`, rowid, i%4, string(d.Meta.Type), d.Meta.Scope, d.Meta.ConversationID, d.code); err != nil {
			t.Fatal(err)
		}
	}
	// A code left without its document: it must not come along (its rowid
	// would collide with a later document's).
	if _, err := old.ExecContext(ctx, `INSERT INTO documents_vec (rowid, shard, doc_type, scope, conversation_id, embedding)
		VALUES (9999, 0, 'memory', 'global', '', vec_bit(?))`, enc[0].code); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := indexRows(t, db.codes)
	if len(got) != len(docs) {
		t.Fatalf("%d codes after the migration, want %d", len(got), len(docs))
	}
	for _, d := range enc {
		var rowid int64
		if err := db.read.QueryRowContext(ctx, "SELECT rowid FROM documents WHERE id = ?", d.ID).Scan(&rowid); err != nil {
			t.Fatal(err)
		}
		want := vecindex.Row{Type: string(d.Meta.Type), Scope: d.Meta.Scope, Conversation: d.Meta.ConversationID, Code: vecindex.CodeOf(d.code)}
		if got[rowid] != want {
			t.Fatalf("%s: index row %+v, want %+v", d.ID, got[rowid].Type, want.Type)
		}
	}
	for _, d := range docs {
		hits, err := db.Search(ctx, core.VectorQuery{Filter: core.Filter{Type: d.Meta.Type, ConversationID: d.Meta.ConversationID},
			Vector: d.Embedding, K: 1})
		if err != nil || len(hits) != 1 || hits[0].ID != d.ID {
			t.Fatalf("search for %q: %+v, %v", d.Text, hits, err)
		}
	}
	var n int
	if err := db.read.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'documents_vec%'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d documents_vec tables left (%v)", n, err)
	}
	// And the store keeps working: a deletion and a new document.
	if err := db.Delete(ctx, docs[0].ID, core.DocMemory); err != nil {
		t.Fatal(err)
	}
	if err := db.Put(ctx, memoryDoc("a new memory about the pond", core.ScopeGlobal, 2)); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, db, []string{"garden cats", "pond"})
	// Migration 7: the keyword index row of a new document is written by
	// Put, not by a trigger; the old documents' rows are still there.
	var triggers int
	db.read.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'documents_fts_insert'").Scan(&triggers)
	if triggers != 0 {
		t.Fatal("the keyword index's insert trigger is still there")
	}
	checkKeywordIndex(t, db, "the migrations")
	for _, text := range []string{"pond", "garden"} {
		if ids := keywordIDs(t, db, text, core.Filter{Type: core.DocMemory}); len(ids) == 0 {
			t.Errorf("keyword search for %q finds nothing", text)
		}
	}
}
