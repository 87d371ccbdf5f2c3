package bot

import (
	"context"
	"strings"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
)

// TestBridgeRemindersGoOnLeave: a room Ada is kicked from loses its
// pending reminders (DECISIONS, "Threads, reminders and MCP servers":
// deleted on leaving), with the default ROOM_DATA_ON_LEAVE (keep): none is
// posted or listed when she is invited back, and another room keeps its
// own. In a room of three; the kick comes from alice, a moderator.
func TestBridgeRemindersGoOnLeave(t *testing.T) {
	f, _ := startRooms(t, func(*botSetup) {})
	kicked, other := f.groupRoom(t, "kicked"), f.groupRoom(t, "kept")
	for _, room := range []id.RoomID{kicked, other} {
		f.command(t, f.bob, room, "!ada remind me in 2 hours call the bank")
		if got := f.command(t, f.alice, room, "!ada remind room tomorrow at 9 water the plants"); !strings.Contains(got, "Reminder #2 set") {
			t.Fatalf("the second reminder: %q", got)
		}
	}
	pending := `SELECT count(*) FROM bridge_reminders WHERE room_id = ?`
	if n := f.bot.count(pending, kicked.String()); n != 2 {
		t.Fatalf("the room has %d pending reminders, want 2", n)
	}

	if _, err := f.alice.Client.KickUser(context.Background(), kicked, &mautrix.ReqKickUser{UserID: f.botID, Reason: "bye"}); err != nil {
		t.Fatal(err)
	}
	f.bot.waitStored(t, "the kicked room's reminders go", 0, pending, kicked.String())

	// Invited back, Ada lists none; the other room keeps both.
	if _, err := f.alice.Client.InviteUser(context.Background(), kicked, &mautrix.ReqInviteUser{UserID: f.botID}); err != nil {
		t.Fatal(err)
	}
	joined := bottest.MembershipOf(kicked, f.botID, event.MembershipJoin)
	first := f.alice.Find(joined)[0].ID
	f.alice.Wait("bot joins again", func(e *event.Event) bool { return joined(e) && e.ID != first })
	if got := f.command(t, f.bob, kicked, "!ada reminders"); !strings.Contains(got, "No reminders are waiting") {
		t.Errorf("after the kick and a new invitation: %q", got)
	}
	if got := f.command(t, f.bob, other, "!ada reminders"); !strings.Contains(got, "call the bank") || !strings.Contains(got, "water the plants") {
		t.Errorf("the other room lost its reminders: %q", got)
	}
}
