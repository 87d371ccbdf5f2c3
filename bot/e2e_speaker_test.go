package bot

import (
	"fmt"
	"strings"
	"testing"

	"maunium.net/go/mautrix/event"
)

// testSpeakerFindsOwnWords is issue 37's "speakers are part of what a
// turn says" in a room of three (alice, bob, Ada): alice says what she
// loves in the first person, never naming herself; bob then says what he
// loves, in more of the question's words, more times than the chat
// recalls turns. Asked what alice loves, the model gets alice's own
// words: her display name is a word of her turn.
func (f *roomsFixture) testSpeakerFindsOwnWords(t *testing.T) {
	room := f.groupRoom(t, "speakers")
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, I love climbing cliffs."})
	for i := range 12 { // the recent window (4 turns) and recall (8) hold fewer
		f.ask(t, f.bob, room, &event.MessageEventContent{MsgType: event.MsgText, Body: fmt.Sprintf("Ada, I love, love painting, part %d.", i)})
	}
	question := "what does member-alice love?"
	f.ask(t, f.bob, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, " + question})
	system := chatRequest(t, f.llm, question).Messages[0].Content
	if !strings.Contains(system, "member-alice: I love climbing cliffs.") {
		t.Errorf("the model was not shown alice's own words, after her name, when asked about her:\n%s", system)
	}
}
