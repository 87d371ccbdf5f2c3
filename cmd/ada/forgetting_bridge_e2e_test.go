package main

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ada-chat/ada/storage"
)

// TestForgettingThroughTheAPIReachesTheBridge: what the bridge keeps (a
// room's last answer for `!ada why`, quoting the memories it used; a
// member's room messages and reminders; their memory page sessions) goes
// when the memory is deleted or the member forgotten (everywhere, or in one
// room) through the API, not only through the bot's own commands, and the
// words are not in ada.db after a clean stop.
// The bridge does not run: its tables are in the same database.
func TestForgettingThroughTheAPIReachesTheBridge(t *testing.T) {
	ada, _, env := startChatAda(t, "ollama", nil)
	ctx := context.Background()
	const alice, bob = "@alice:example.org", "@bob:example.org"
	rooms := []string{"!one:example.org", "!two:example.org"}
	words := []string{"wibblesnortch", "plonkvarrow", "zentrovask"}

	var mem struct {
		ID string `json:"id"`
	}
	if st := ada.call("POST", "/v1/memory", map[string]any{"text": "Alice's locker code is wibblesnortch"}, &mem); st != 201 {
		t.Fatalf("create: %d", st)
	}
	// What the bridge keeps, as it would have written it in the rooms.
	dbPath := filepath.Join(env["DATA_DIR"], "ada.db")
	db, err := storage.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	b, now := db.Bridge(), time.Now()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(b.SaveWhy(ctx, rooms[0], storage.BridgeWhy{QuestionEvent: "$q0", ReplyEvent: "$r0", DocIDs: []string{mem.ID},
		Body: []byte(`{"used":{"memories":[{"id":"` + mem.ID + `","text":"Alice's locker code is wibblesnortch"}]}}`), At: now}))
	for _, room := range rooms {
		must(b.AddMessage(ctx, room, storage.BridgeMessage{EventID: "$a" + room, Sender: alice, Text: "my bike is plonkvarrow blue", Time: now}, 50))
		must(b.AddMessage(ctx, room, storage.BridgeMessage{EventID: "$b" + room, Sender: bob, Text: "hello", Time: now}, 50))
	}
	// Bob's pending reminder in the first room: his words, which forgetting
	// him there (room_id) takes with his messages there.
	_, err = b.AddReminder(ctx, storage.BridgeReminder{RoomID: rooms[0], Member: bob, Text: "call zentrovask", Due: now.Add(time.Hour), EventID: "$c", Created: now}, 10, 10)
	must(err)
	tok, ok, err := b.IssueWebLogin(ctx, alice, now, 15*time.Minute, time.Minute)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	_, epoch, err := b.RedeemWebLogin(ctx, tok, now)
	must(err)
	must(db.Close())

	if st := ada.call("DELETE", "/v1/memory/"+mem.ID, nil, nil); st != 200 && st != 204 {
		t.Fatalf("delete: %d", st)
	}
	if st := ada.call("DELETE", "/v1/memory?entity="+url.QueryEscape(alice), nil, nil); st != 200 {
		t.Fatalf("forget alice: %d", st)
	}
	if st := ada.call("DELETE", "/v1/memory?entity="+url.QueryEscape(bob)+"&room_id="+url.QueryEscape(rooms[0]), nil, nil); st != 200 {
		t.Fatalf("forget bob in %s: %d", rooms[0], st)
	}
	ada.stop()

	for _, name := range []string{"ada.db", "ada.db-wal"} {
		data, err := os.ReadFile(filepath.Join(env["DATA_DIR"], name))
		if os.IsNotExist(err) {
			continue
		}
		must(err)
		assertNoWords(t, name, data, words)
	}
	db, err = storage.Open(ctx, dbPath)
	must(err)
	defer db.Close()
	b = db.Bridge()
	if _, ok, err := b.LoadWhy(ctx, rooms[0]); err != nil || ok {
		t.Errorf("the last answer quoting the deleted memory is kept (%v)", err)
	}
	for i, room := range rooms {
		msgs, err := b.RecentMessages(ctx, room, 50)
		must(err)
		if want := i; len(msgs) != want || (want == 1 && msgs[0].Sender != bob) {
			t.Errorf("%s keeps %+v, want %d (bob's, not forgotten there)", room, msgs, want)
		}
	}
	if rs, err := b.RoomReminders(ctx, rooms[0]); err != nil || len(rs) != 0 {
		t.Errorf("bob's reminder in %s is kept: %+v (%v)", rooms[0], rs, err)
	}
	if cur, err := b.WebSessionEpoch(ctx, alice); err != nil || cur == epoch {
		t.Errorf("alice's memory page session is still open (%v)", err)
	}
}
