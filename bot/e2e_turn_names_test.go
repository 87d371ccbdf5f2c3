package bot

import (
	"strings"
	"testing"

	"maunium.net/go/mautrix/event"
)

// testEarlierTurnsNamed is issue 40 item 6 in a room of three (alice, bob,
// Ada): the earlier questions of the shared conversation reach the model
// as turns that name their speaker, not as unnamed "user" turns.
func (f *roomsFixture) testEarlierTurnsNamed(t *testing.T) {
	room := f.groupRoom(t, "earlier turns")
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, where is the picnic?"})
	f.ask(t, f.bob, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, what should I bring?"})
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, and when does it start?"})
	last := chatRequest(t, f.llm, "when does it start?").Messages
	want := map[string]string{"where is the picnic?": "member-alice: ", "what should I bring?": "member-bob: "}
	for _, m := range last[1 : len(last)-1] {
		for q, name := range want {
			if m.Role == "user" && strings.Contains(m.Content, q) {
				if !strings.HasPrefix(m.Content, name) {
					t.Errorf("an earlier turn reaches the model unnamed: %q, want it to start with %q", m.Content, name)
				}
				delete(want, q)
			}
		}
	}
	if len(want) != 0 {
		t.Errorf("earlier turns missing from the prompt: %v\n%v", want, last)
	}
}
