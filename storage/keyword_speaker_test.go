package storage

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
	"time"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/vecindex"
)

// TestKeywordIndexHoldsTheSpeaker: a turn's speaker is one of its words
// (migration 21): a keyword search for the name finds the turn, whose text
// never says it; the index stays in step through a delete (its trigger
// removes the speaker it was given), and reindex embeds the turn with its
// speaker, as core stores it.
func TestKeywordIndexHoldsTheSpeaker(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	if err := db.CheckEmbedder(ctx, embed.HashName); err != nil {
		t.Fatal(err)
	}
	conv := core.NewConversationID()
	now := time.Now()
	said := turnDoc(conv, "", 0, "I go climbing every Sunday", now)
	said.Meta.Speaker = "Bartholomew"
	other := turnDoc(conv, "", 1, "Bartholomew never climbs", now)
	plain := turnDoc(conv, "", 2, "climbing gyms open at nine", now)
	if err := db.Put(ctx, said, other, plain); err != nil {
		t.Fatal(err)
	}
	checkKeywordIndex(t, db, "put")
	got := keywordIDs(t, db, "what does Bartholomew do", core.Filter{Type: core.DocTurn})
	if !slices.Contains(got, said.ID) || !slices.Contains(got, other.ID) || slices.Contains(got, plain.ID) {
		t.Fatalf("a search for the speaker's name found %v; want the turn said by them (%s) and the one naming them (%s)", got, said.ID, other.ID)
	}
	if err := db.Reindex(ctx, &flakyEmbedder{}, 10, nil); err != nil {
		t.Fatal(err)
	}
	d, err := db.Get(ctx, said.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d.Text != "I go climbing every Sunday" {
		t.Errorf("stored text %q: the speaker must not be written into it", d.Text)
	}
	if want := embed.HashVector("Bartholomew: I go climbing every Sunday"); !slices.Equal(d.Embedding, want) {
		t.Error("reindex embedded the turn without its speaker")
	}
	if err := db.Delete(ctx, said.ID, core.DocTurn); err != nil {
		t.Fatal(err)
	}
	checkKeywordIndex(t, db, "delete")
	if got := keywordIDs(t, db, "Bartholomew", core.Filter{Type: core.DocTurn}); !slices.Equal(got, []string{other.ID}) {
		t.Errorf("after the delete a search for the name found %v, want only %s", got, other.ID)
	}
}

// TestMigrationIndexesTheSpeakersOfEarlierTurns: a store of version 20
// had its turns' speakers in their metadata only; upgrading makes them
// words of the keyword index.
func TestMigrationIndexesTheSpeakersOfEarlierTurns(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ada.db")
	old := storeAtVersion(t, dsn(path, false, SyncFull), 20)
	conv := core.NewConversationID()
	const id = "doc-00000000-0000-4000-8000-0000000000c1"
	meta := `{"type":"turn","timestamp":"2026-01-02T03:04:05Z","source":"chat","scope":"global","conversation_id":"` + conv +
		`","role":"user","turn_index":0,"speaker":"Bartholomew"}`
	// As version 20 wrote a turn: its row, its code, its keyword row.
	vec := embed.HashVector("I go climbing every Sunday")
	if _, err := old.ExecContext(ctx, `INSERT INTO documents (rowid, id, type, scope, conversation_id, ts, text, metadata, embedding)
		VALUES (1, ?, 'turn', 'global', ?, 1, 'I go climbing every Sunday', ?, ?)`, id, conv, meta, encodeFloats(vec)); err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(ctx, `INSERT INTO documents_codes (rowid, doc_type, scope, conversation_id, code) VALUES (1, 'turn', 'global', ?, ?)`,
		conv, vecindex.Quantize(vec)); err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(ctx, `INSERT INTO documents_fts (rowid, text) VALUES (1, 'I go climbing every Sunday')`); err != nil {
		t.Fatal(err)
	}
	old.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkKeywordIndex(t, db, "the upgrade")
	// A vector search waits for the code index's load, so the keyword
	// search below always takes the path through it.
	if _, err := db.Search(ctx, core.VectorQuery{Filter: core.Filter{Type: core.DocTurn}, Vector: vec, K: 1}); err != nil {
		t.Fatal(err)
	}
	if got := keywordIDs(t, db, "Bartholomew", core.Filter{Type: core.DocTurn}); !slices.Equal(got, []string{id}) {
		t.Errorf("after the upgrade a search for the speaker found %v, want %s", got, id)
	}
}

// storeAtVersion opens a new store at dsn with the first version
// migrations applied, as a store of that version was, on one connection.
func storeAtVersion(t *testing.T, dsn string, version int) *sql.DB {
	t.Helper()
	registerVec.Do(sqlite_vec.Auto)
	old, err := sql.Open("sqlite3", dsn)
	if err != nil {
		t.Fatal(err)
	}
	old.SetMaxOpenConns(1)
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:version] {
		if err := applyMigration(context.Background(), old, m); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
	}
	return old
}
