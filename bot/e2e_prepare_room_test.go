package bot

import (
	"context"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestPrepareRoomKeepsNewerMembers: reading a room's state from the
// homeserver never takes back a membership the state store already holds.
// The homeserver's answer can be older than what /sync delivered (Dendrite
// answered /state without the invite of a direct chat Ada had just made,
// and without a third member's join that /sync had already reported: the
// link went to Ada's devices only, or into a room of three as if it were a
// direct chat). Here the store is told of a join the homeserver does not
// know, as /sync would have been, and keeps it; a member it does not hold
// is learned from the answer.
func TestPrepareRoomKeepsNewerMembers(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	alice := bottest.NewMember(t, hs, "alice", false)
	bob := bottest.NewMember(t, hs, "bob", false)
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "prepare", Invite: []id.UserID{acct.UserID, bob.Client.UserID}})
	bob.Join(room)
	env := startBot(t, botSettings(hs, llm, acct, t.TempDir()))
	alice.Wait("Ada joins", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))
	// Ada's answer says her sync has passed every join before the command.
	asked := alice.Say(room, "!ada help")
	alice.Wait("the help", bottest.ReplyTo(acct.UserID, asked, event.MsgNotice))

	ctx := context.Background()
	mx, store := env.bot.mx, env.bot.mx.cli.StateStore
	carol := id.UserID("@carol:localhost") // joined, as far as the store knows
	if err := store.ClearCachedMembers(ctx, room); err != nil {
		t.Fatal(err)
	}
	if err := store.SetMembership(ctx, room, carol, event.MembershipJoin); err != nil {
		t.Fatal(err)
	}
	mx.rooms.forget(room) // prepared again, as after a restart
	if err := mx.prepareRoom(ctx, room); err != nil {
		t.Fatal(err)
	}
	for user, want := range map[id.UserID]event.Membership{
		carol:               event.MembershipJoin,
		bob.Client.UserID:   event.MembershipJoin, // learned from the homeserver
		alice.Client.UserID: event.MembershipJoin,
		acct.UserID:         event.MembershipJoin,
	} {
		if got, err := store.TryGetMember(ctx, room, user); err != nil || got == nil || got.Membership != want {
			t.Errorf("%s after the room's preparation: %+v, %v; want %s", user, got, err, want)
		}
	}
}
