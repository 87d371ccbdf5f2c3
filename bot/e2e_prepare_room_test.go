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

// TestRejoinForgetsAnEarlierStaysMembers: what the state store holds of a
// room's members from Ada's earlier stay is dropped when she is invited
// back. Sync says nothing of a room she is out of, and the room's
// preparation keeps every membership the store holds (above), so a member
// who left meanwhile would still count as joined: the room's keys shared
// with their devices, a room shrunk to two not a direct chat. Here the
// store holds a join the room's state does not have, as a stale one would
// be; after the kick and the new invitation it is gone, and the members
// the homeserver lists are learned. In a room of three.
func TestRejoinForgetsAnEarlierStaysMembers(t *testing.T) {
	f, _ := startRooms(t, func(*botSetup) {})
	room := f.groupRoom(t, "rejoin")
	ctx := context.Background()
	store := f.bot.bot.mx.cli.StateStore
	if _, err := f.alice.Client.KickUser(ctx, room, &mautrix.ReqKickUser{UserID: f.botID, Reason: "bye"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "Ada's sync delivers her kick", func() bool { return store.IsMembership(ctx, room, f.botID, event.MembershipLeave) })
	carol := id.UserID("@carol:localhost")
	if err := store.SetMembership(ctx, room, carol, event.MembershipJoin); err != nil {
		t.Fatal(err)
	}

	if _, err := f.alice.Client.InviteUser(ctx, room, &mautrix.ReqInviteUser{UserID: f.botID}); err != nil {
		t.Fatal(err)
	}
	intro := bottest.MessageFrom(room, f.botID, event.MsgNotice)
	firstIntro := f.alice.Find(intro)[0].ID
	f.alice.Wait("the intro of the new stay", func(e *event.Event) bool { return intro(e) && e.ID != firstIntro })
	// Ada's own join can reach the store after her intro (through sync,
	// when the homeserver's answer to the preparation predates it).
	for _, user := range []id.UserID{f.alice.Client.UserID, f.bob.Client.UserID, f.botID} {
		waitFor(t, string(user)+" joined in the store in the new stay", func() bool { return store.IsMembership(ctx, room, user, event.MembershipJoin) })
	}
	if m, err := store.TryGetMember(ctx, room, carol); err != nil || m != nil && m.Membership == event.MembershipJoin {
		t.Errorf("carol, joined in the store before the new stay only: %+v, %v", m, err)
	}
}
