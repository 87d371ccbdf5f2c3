package bot

import (
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestStreamCutByAStop (issue 40 item 8), in a room of three (alice, bob,
// Ada): a streamed answer cut off by a stop is marked incomplete in its
// own reply and gets ❌, and no second notice says Ada could not answer.
func TestStreamCutByAStop(t *testing.T) {
	hs, llm, acct, settings, alice := newOneMember(t, func(s *botSetup) {
		s.ShutdownGrace = time.Second
		s.Stream = StreamOptions{On: true, Interval: 100 * time.Millisecond, MaxEdits: 6}
	})
	bob := bottest.NewMember(t, hs, "bob", false)
	first := startBot(t, settings)
	f := &roomsFixture{hs: hs, llm: llm, bot: first, botID: acct.UserID, alice: alice, bob: bob}
	room := f.groupRoom(t, "stream stop")

	llm.Script(llmtest.Reply{Tokens: []string{"The first half. ", "and then"}, Hang: true})
	asked := alice.Say(room, "Ada, tell me something long")
	reply := alice.Wait("the first sentence", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
	first.stop()
	alice.Wait("❌ at the stop", bottest.ReactionTo(asked, reactFailed))
	alice.Wait("the reply marked incomplete", func(e *event.Event) bool {
		nc := e.Content.AsMessage().NewContent
		return editsOf(reply.ID)(e) && nc != nil && strings.Contains(nc.Body, "incomplete") && strings.Contains(nc.Body, "restarted")
	})
	// Everything Ada sent came before the stop ended; this message comes
	// down alice's sync after all of it.
	after := alice.Say(room, "after the stop")
	alice.Wait("the message after the stop", func(e *event.Event) bool { return e.ID == after })
	if got := alice.Find(bottest.ReplyTo(acct.UserID, asked, event.MsgNotice)); len(got) != 0 {
		t.Errorf("a second notice besides the incomplete reply: %s", bottest.Describe(got[0]))
	}
}
