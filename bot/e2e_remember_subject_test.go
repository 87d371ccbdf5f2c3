package bot

import (
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
)

// testRememberAboutAnother is issue 40 item 4 in a room of three (alice,
// bob, Ada): what alice asks Ada to remember about bob has bob as its
// subject, by extraction's rule, so bob may forget it himself and his
// `!ada forget me` takes it; alice's own memory stays hers alone.
func (f *roomsFixture) testRememberAboutAnother(t *testing.T) {
	room := f.groupRoom(t, "remember about another")
	bob := f.bob.Client.UserID.String()
	f.command(t, f.alice, room, "!ada remember member-bob owes me a copy of Dune")
	f.command(t, f.alice, room, "!ada remember member-bob's locker is 7")
	f.command(t, f.alice, room, "!ada remember I like green tea")
	mems := f.bot.waitMemories(t, room, "alice's three memories", func(m []core.Memory) bool {
		return holding("Dune")(m) && holding("locker")(m) && holding("green tea")(m)
	})
	for _, m := range mems {
		want := bob
		if strings.Contains(m.Text, "green tea") {
			want = ""
		}
		if m.Meta.SubjectUserID != want || m.Meta.UserID != f.alice.Client.UserID.String() {
			t.Errorf("%q: told by %q about %q, want alice about %q", m.Text, m.Meta.UserID, m.Meta.SubjectUserID, want)
		}
	}

	var dune string
	for _, m := range mems {
		if strings.Contains(m.Text, "Dune") {
			dune = shortID(m.ID)
		}
	}
	if got := f.command(t, f.bob, room, "!ada forget "+dune); !strings.Contains(got, "Forgotten") {
		t.Errorf("bob forgetting what alice told about him: %q", got)
	}
	f.command(t, f.bob, room, "!ada forget me")
	if mems := f.bot.roomMemories(t, room); holding("Dune")(mems) || holding("locker")(mems) || !holding("green tea")(mems) {
		t.Errorf("bob's forget me takes what alice told about him, not alice's own: %v", memoryTexts(mems))
	}
}
