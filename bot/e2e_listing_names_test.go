package bot

import (
	"context"
	"strings"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
)

// testListingNamesTold is issue 40 item 3 in a room of three (alice, bob,
// Ada) that sam then joins under bob's display name: `!ada memories` shows
// each remembered text with its teller's user id once the name is shared,
// also the one stored while bob's name was still his alone.
func (f *roomsFixture) testListingNamesTold(t *testing.T) {
	room := f.groupRoom(t, "listing names")
	f.command(t, f.bob, room, "!ada remember my locker is 12")
	sam := f.joinAs(t, room, "member-sam", "member-bob")
	f.command(t, sam, room, "!ada remember my locker is 13")
	got := f.command(t, f.alice, room, "!ada memories")
	for _, want := range []string{"member-bob (" + f.bob.Client.UserID.String() + "): my locker is 12",
		"member-bob (" + sam.Client.UserID.String() + "): my locker is 13"} {
		if !strings.Contains(got, want) {
			t.Errorf("the listing lacks %q:\n%s", want, got)
		}
	}
	// Issue 40 item 15: a one-word memory's confirmation shows a part of
	// the word, not only the teller's name.
	if got := f.command(t, f.bob, room, "!ada remember pineapples"); !strings.Contains(got, "“pin…”") {
		t.Errorf("a one-word remember's confirmation: %q", got)
	}
}

// joinAs registers a member under localpart, gives them the display name
// name and has alice invite them into room.
func (f *roomsFixture) joinAs(t *testing.T, room id.RoomID, localpart, name string) *bottest.Member {
	t.Helper()
	m := bottest.NewMember(t, f.hs, localpart, false)
	if err := m.Client.SetDisplayName(context.Background(), name); err != nil {
		t.Fatal(err)
	}
	if _, err := f.alice.Client.InviteUser(context.Background(), room, &mautrix.ReqInviteUser{UserID: m.Client.UserID}); err != nil {
		t.Fatal(err)
	}
	m.Join(room)
	return m
}
