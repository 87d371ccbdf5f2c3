package bot

import (
	"context"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
)

// TestPrepareRoomKeepsNewerMembers: reading a room's state from the
// homeserver never takes back a membership the state store already holds.
// The homeserver's answer can be older than what /sync delivered (Dendrite
// answered /state without the invite of a direct chat Ada had just made,
// and without a third member's join that /sync had already reported: the
// link went to Ada's devices only, or into a room of three as if it were a
// direct chat). Here the store is told of a join the homeserver does not
// know, as /sync would have been, and keeps it; a join the answer has as
// an invite stays a join; a member it does not hold is learned from the
// answer.
func TestPrepareRoomKeepsNewerMembers(t *testing.T) {
	f, _ := startRooms(t, func(*botSetup) {})
	// bob's join is on the homeserver before the preparation below reads it.
	room := f.groupRoom(t, "prepare")

	ctx := context.Background()
	mx, store := f.bot.bot.mx, f.bot.bot.mx.cli.StateStore
	carol := id.UserID("@carol:localhost") // joined, as far as the store knows
	// dave is only invited as far as the homeserver's answer goes; the
	// store holds his join, as a /sync newer than the answer would.
	dave := bottest.NewMember(t, f.hs, "dave", false).Client.UserID
	if _, err := f.alice.Client.InviteUser(ctx, room, &mautrix.ReqInviteUser{UserID: dave}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "Ada's sync delivers dave's invite", func() bool {
		m, err := store.TryGetMember(ctx, room, dave)
		return err == nil && m != nil && m.Membership == event.MembershipInvite
	})
	if err := store.ClearCachedMembers(ctx, room); err != nil {
		t.Fatal(err)
	}
	for _, u := range []id.UserID{carol, dave} {
		if err := store.SetMembership(ctx, room, u, event.MembershipJoin); err != nil {
			t.Fatal(err)
		}
	}
	mx.rooms.forget(room) // prepared again, as after a restart
	if err := mx.prepareRoom(ctx, room); err != nil {
		t.Fatal(err)
	}
	for user, want := range map[id.UserID]event.Membership{
		carol:                 event.MembershipJoin,
		dave:                  event.MembershipJoin, // not taken back to the answer's invite
		f.bob.Client.UserID:   event.MembershipJoin, // learned from the homeserver
		f.alice.Client.UserID: event.MembershipJoin,
		f.botID:               event.MembershipJoin,
	} {
		if got, err := store.TryGetMember(ctx, room, user); err != nil || got == nil || got.Membership != want {
			t.Errorf("%s after the room's preparation: %+v, %v; want %s", user, got, err, want)
		}
	}
}
