package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
)

// openEnvStore opens the database of a test instance's data directory
// (running or not), closed when the test ends.
func openEnvStore(t testing.TB, env map[string]string) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(env["DATA_DIR"], "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// seedTurn writes a turn document straight into the running instance's
// database, as chat would.
func seedTurn(t *testing.T, env map[string]string) string {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(env["DATA_DIR"], "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	idx := 0
	d := core.Document{ID: core.NewDocID(), Text: "hello there", Embedding: embed.HashVector("hello there"),
		Meta: core.Metadata{Type: core.DocTurn, Timestamp: time.Now(), Source: core.SourceChat, Scope: core.ScopeGlobal,
			ConversationID: core.NewConversationID(), Role: "user", TurnIndex: &idx}}
	if err := db.Put(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	return d.ID
}

func turnExists(t *testing.T, env map[string]string, id string) bool {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(env["DATA_DIR"], "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = db.Get(context.Background(), id)
	return err == nil
}
