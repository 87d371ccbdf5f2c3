package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
)

// TestServeSweepsOldRoomDocuments covers `ada serve` with the bridge in
// another process: the API process itself enforces DATA_RETENTION_DAYS on
// documents that came from chat rooms, and keeps everything else. The
// bridge's tables in its database (an earlier `ada up` wrote them) are
// swept too: old room messages and reminders go, newer ones stay.
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
	bridge := db.Bridge()
	for _, m := range []storage.BridgeMessage{{EventID: "$old", Sender: "@bob:example.org", Text: "old words", Time: time.Now().Add(-40 * 24 * time.Hour)},
		{EventID: "$new", Sender: "@bob:example.org", Text: "new words", Time: time.Now().Add(-24 * time.Hour)}} {
		if err := bridge.AddMessage(context.Background(), "!room:example.org", m, 10); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []storage.BridgeReminder{{Text: "old reminder", EventID: "$old-r", Created: time.Now().Add(-40 * 24 * time.Hour)},
		{Text: "new reminder", EventID: "$new-r", Created: time.Now().Add(-24 * time.Hour)}} {
		r.RoomID, r.Member, r.Due = "!room:example.org", "@bob:example.org", time.Now().Add(time.Hour)
		if _, err := bridge.AddReminder(context.Background(), r, 10, 10); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	// bridgeRows are the texts of the bridge's messages and reminders.
	bridgeRows := func() []string {
		t.Helper()
		db, err := storage.Open(context.Background(), filepath.Join(env["DATA_DIR"], "ada.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		msgs, err := db.Bridge().RecentMessages(context.Background(), "!room:example.org", 10)
		if err != nil {
			t.Fatal(err)
		}
		rems, err := db.Bridge().RoomReminders(context.Background(), "!room:example.org")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range msgs {
			out = append(out, m.Text)
		}
		for _, r := range rems {
			out = append(out, r.Text)
		}
		return out
	}

	ada := startAda(t, "serve", env)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && (turnExists(t, env, oldRoom.ID) || turnExists(t, env, staleSummary.ID) || len(bridgeRows()) > 2) {
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
	if got := strings.Join(bridgeRows(), ", "); got != "new words, new reminder" {
		t.Errorf("the bridge's messages and reminders after the sweep: %s; want only the newer ones", got)
	}
}
