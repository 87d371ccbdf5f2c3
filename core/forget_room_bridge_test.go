package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// bridgeCopies fills the bridge's tables of each room with a message and a
// pending reminder of each member, and a last answer to alice's question.
func bridgeCopies(t *testing.T, b *storage.Bridge, rooms []string, members ...string) {
	t.Helper()
	ctx, now := context.Background(), time.Now()
	for _, room := range rooms {
		for _, who := range members {
			if err := b.AddMessage(ctx, room, storage.BridgeMessage{EventID: "$" + who + room, Sender: who, Text: "my locker code is 4417", Time: now}, 50); err != nil {
				t.Fatal(err)
			}
			r := storage.BridgeReminder{RoomID: room, Member: who, Text: "change the locker code 4417", Due: now.Add(time.Hour), EventID: "$" + who + room, Created: now}
			if _, err := b.AddReminder(ctx, r, 10, 10); err != nil {
				t.Fatal(err)
			}
		}
		err := b.SaveWhy(ctx, room, storage.BridgeWhy{QuestionEvent: "$" + members[0] + room, ReplyEvent: "$r" + room, Body: []byte(`{"question":"4417"}`), At: now})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// senders lists who sent the room's stored messages and who asked its
// pending reminders, and whether its last answer is kept.
func senders(t *testing.T, b *storage.Bridge, room string) (msgs, rems []string, why bool) {
	t.Helper()
	ctx := context.Background()
	ms, err := b.RecentMessages(ctx, room, 50)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		msgs = append(msgs, m.Sender)
	}
	rs, err := b.RoomReminders(ctx, room)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		rems = append(rems, r.Member)
	}
	_, why, err = b.LoadWhy(ctx, room)
	if err != nil {
		t.Fatal(err)
	}
	return msgs, rems, why
}

// TestMemberForgottenInOneRoomLeavesNoBridgeCopies: forgetting a member in
// one room through the API (DELETE /v1/memory?entity=@u&room_id=!r) takes
// what the bridge holds of them there, as `!ada forget me` does: their
// stored messages, the last answer to their question and their pending
// reminders. Another member's, and their own in another room, stay.
func TestMemberForgottenInOneRoomLeavesNoBridgeCopies(t *testing.T) {
	ctx := context.Background()
	svc, b := newBridgedService(t)
	const alice, bob = "@alice:example.org", "@bob:example.org"
	rooms := []string{"!one:example.org", "!two:example.org"}
	bridgeCopies(t, b, rooms, alice, bob)
	if _, err := svc.Forget(ctx, core.ForgetRequest{Entity: alice, RoomID: rooms[0]}); err != nil {
		t.Fatal(err)
	}
	msgs, rems, why := senders(t, b, rooms[0])
	if len(msgs) != 1 || msgs[0] != bob || len(rems) != 1 || rems[0] != bob || why {
		t.Errorf("%s keeps messages of %v, reminders of %v, last answer to alice %v; want only bob's", rooms[0], msgs, rems, why)
	}
	msgs, rems, why = senders(t, b, rooms[1])
	if len(msgs) != 2 || len(rems) != 2 || !why {
		t.Errorf("%s (not named) keeps messages of %v, reminders of %v, last answer %v; want all", rooms[1], msgs, rems, why)
	}
}

// TestRoomForgottenLeavesNoBridgeCopies: forgetting a room through the API
// (DELETE /v1/memory?entity=!r) takes what the bridge holds of it: its
// stored messages, its last answer and its pending reminders. Another
// room's stay.
func TestRoomForgottenLeavesNoBridgeCopies(t *testing.T) {
	ctx := context.Background()
	svc, b := newBridgedService(t)
	rooms := []string{"!one:example.org", "!two:example.org"}
	bridgeCopies(t, b, rooms, "@alice:example.org", "@bob:example.org")
	if _, err := svc.Forget(ctx, core.ForgetRequest{Entity: rooms[0]}); err != nil {
		t.Fatal(err)
	}
	if msgs, rems, why := senders(t, b, rooms[0]); len(msgs)+len(rems) != 0 || why {
		t.Errorf("the forgotten room keeps messages of %v, reminders of %v, last answer %v", msgs, rems, why)
	}
	if msgs, rems, why := senders(t, b, rooms[1]); len(msgs) != 2 || len(rems) != 2 || !why {
		t.Errorf("another room keeps messages of %v, reminders of %v, last answer %v; want all", msgs, rems, why)
	}
}
