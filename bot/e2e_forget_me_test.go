package bot

import (
	"strings"
	"testing"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core"
)

// testForgetMe (issue 26, items 3 and 4): a fact alice tells about bob
// has bob as its subject; `!ada forget me` takes what Ada holds from the
// member in the room — stored messages, turns, the memories they told or
// are the subject of — and answers with counts; another member's memories
// stay. Only a moderator may forget another member.
func (f *roomsFixture) testForgetMe(t *testing.T) {
	room := f.groupRoom(t, "forget me")
	extractFacts(t, f.llm, map[string]string{"my cat is Miso": "member-bob's cat is Miso", "my dog is Rex": "member-alice's dog is Rex",
		"bob's bike is red": "member-bob's bike is red"})
	_, bobsReply := f.ask(t, f.bob, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, my cat is Miso"})
	_, alicesReply := f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, my dog is Rex"})
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, bob's bike is red"})
	f.command(t, f.bob, room, "!ada remember bob's locker is 12")
	mems := f.bot.waitMemories(t, room, "the facts are learned", func(m []core.Memory) bool {
		return holding("Miso")(m) && holding("Rex")(m) && holding("bike")(m)
	})
	// Item 4: a fact alice tells about bob has bob as its subject.
	for _, m := range mems {
		if strings.Contains(m.Text, "bike") && (m.Meta.SubjectUserID != f.bob.Client.UserID.String() || m.Meta.UserID != f.alice.Client.UserID.String()) {
			t.Errorf("alice's fact about bob: told by %q about %q, want alice about bob", m.Meta.UserID, m.Meta.SubjectUserID)
		}
	}

	if got := f.command(t, f.bob, room, "!ada forget @member-alice:localhost"); !strings.Contains(got, "Only room moderators") {
		t.Errorf("bob may not forget alice: %q", got)
	}
	got := f.command(t, f.bob, room, "!ada forget me")
	if !strings.Contains(got, "2 turns") || !strings.Contains(got, "3 memories") || !strings.Contains(got, "3 of my replies") {
		t.Errorf("forget me should count bob's exchange, his 3 memories (one told by alice) and Ada's 3 replies to him (answer, remember, refusal): %q", got)
	}
	// Ada's reply to bob quotes him: it is redacted, as a redaction of his
	// message would; alice's stays (the redactions come before the answer).
	f.bob.Wait("Ada's reply to bob is redacted", bottest.RedactionOf(bobsReply.ID))
	if got := f.alice.Find(bottest.RedactionOf(alicesReply.ID)); len(got) != 0 {
		t.Errorf("Ada's reply to alice was redacted too")
	}
	mems = f.bot.roomMemories(t, room)
	if holding("Miso")(mems) || holding("locker")(mems) || holding("bike")(mems) || !holding("Rex")(mems) {
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
