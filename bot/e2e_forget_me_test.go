package bot

import (
	"strings"
	"testing"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/core"
)

// testForgetMe (issue 26, item 3): `!ada forget me` takes what Ada holds
// from the member in the room — stored messages, turns, the memories they
// told — and answers with counts; another member's memories stay. Only a
// moderator may forget another member.
func (f *roomsFixture) testForgetMe(t *testing.T) {
	room := f.groupRoom(t, "forget me")
	extractFacts(t, f.llm, map[string]string{"my cat is Miso": "member-bob's cat is Miso", "my dog is Rex": "member-alice's dog is Rex"})
	f.ask(t, f.bob, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, my cat is Miso"})
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, my dog is Rex"})
	f.command(t, f.bob, room, "!ada remember bob's locker is 12")
	f.bot.waitMemories(t, room, "both facts learned", func(m []core.Memory) bool { return holding("Miso")(m) && holding("Rex")(m) })

	if got := f.command(t, f.bob, room, "!ada forget @member-alice:localhost"); !strings.Contains(got, "Only room moderators") {
		t.Errorf("bob may not forget alice: %q", got)
	}
	got := f.command(t, f.bob, room, "!ada forget me")
	if !strings.Contains(got, "2 turns") || !strings.Contains(got, "2 memories") {
		t.Errorf("forget me should count bob's exchange and his 2 memories: %q", got)
	}
	mems := f.bot.roomMemories(t, room)
	if holding("Miso")(mems) || holding("locker")(mems) || !holding("Rex")(mems) {
		t.Errorf("bob's memories should be gone and alice's stay: %v", memoryTexts(mems))
	}
	if n := f.bot.count(`SELECT count(*) FROM documents WHERE room_id = ? AND type = 'turn' AND text LIKE '%Miso%'`, room.String()); n != 0 {
		t.Errorf("bob's turns are still stored: %d", n)
	}
	if n := f.bot.count(`SELECT count(*) FROM bridge_messages WHERE room_id = ? AND sender = ?`, room.String(), f.bob.Client.UserID.String()); n != 0 {
		t.Errorf("bob's messages are still stored: %d", n)
	}
	if n := f.bot.count(`SELECT count(*) FROM documents WHERE room_id = ? AND type = 'turn' AND text LIKE '%Rex%'`, room.String()); n != 1 {
		t.Errorf("alice's question should stay: %d", n)
	}

	// A moderator forgets another member.
	got = f.command(t, f.alice, room, "!ada forget @member-bob:localhost")
	if !strings.Contains(got, "member-bob") || !strings.Contains(got, "0 memories") {
		t.Errorf("alice forgetting bob again: %q", got)
	}
}
