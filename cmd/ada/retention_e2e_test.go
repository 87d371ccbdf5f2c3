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

// TestServeSweepsOldRoomDocuments covers `ada serve` with the bridge in
// another process: the API process itself enforces DATA_RETENTION_DAYS on
// documents that came from chat rooms, and keeps everything else.
func TestServeSweepsOldRoomDocuments(t *testing.T) {
	env := testEnv(t, map[string]string{"DATA_RETENTION_DAYS": "30"})
	db, err := storage.Open(context.Background(), filepath.Join(env["DATA_DIR"], "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	conv := core.NewConversationID()
	doc := func(room string, age time.Duration, idx int) core.Document {
		return core.Document{ID: core.NewDocID(), Text: "turn text", Embedding: embed.HashVector("turn text"),
			Meta: core.Metadata{Type: core.DocTurn, Timestamp: time.Now().Add(-age), Source: core.SourceChat, Scope: core.ScopeGlobal,
				ConversationID: conv, Role: "user", TurnIndex: &idx, RoomID: room}}
	}
	oldRoom, newRoom, oldAPI := doc("!room:example.org", 40*24*time.Hour, 0), doc("!room:example.org", 24*time.Hour, 1), doc("", 40*24*time.Hour, 2)
	// Summaries are newer than the cutoff; the one covering the old turn
	// must go with it, the one covering only the newer turn stays.
	summary := func(turnRange string, idx int) core.Document {
		return core.Document{ID: core.NewDocID(), Text: "summary text", Embedding: embed.HashVector("summary text"),
			Meta: core.Metadata{Type: core.DocSummary, Timestamp: time.Now(), Source: core.SourceSystem, Scope: core.ScopeGlobal,
				ConversationID: conv, TurnRange: turnRange, SummaryIndex: &idx, RoomID: "!room:example.org"}}
	}
	staleSummary, liveSummary := summary("0-0", 0), summary("1-1", 1)
	if err := db.Put(context.Background(), oldRoom, newRoom, oldAPI, staleSummary, liveSummary); err != nil {
		t.Fatal(err)
	}
	db.Close()

	ada := startAda(t, "serve", env)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && (turnExists(t, env, oldRoom.ID) || turnExists(t, env, staleSummary.ID)) {
		time.Sleep(50 * time.Millisecond)
	}
	ada.stop()
	if turnExists(t, env, oldRoom.ID) {
		t.Fatal("an old room turn survived the retention sweep")
	}
	if !turnExists(t, env, newRoom.ID) || !turnExists(t, env, oldAPI.ID) {
		t.Fatal("the sweep deleted a newer room turn or a document that did not come from a room")
	}
	if turnExists(t, env, staleSummary.ID) || !turnExists(t, env, liveSummary.ID) {
		t.Fatal("the summary of the deleted turn survived, or the other one was removed")
	}
}
