package bot

import (
	"testing"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// testEveryWaiterTold is issue 40 item 12 in a room of three (alice, bob,
// Ada): while the model works on alice's question, bob's question and then
// alice's next one each get the "still answering" notice, not only the
// first that waits; all are answered once the model goes on.
func (f *roomsFixture) testEveryWaiterTold(t *testing.T) {
	room := f.groupRoom(t, "waiting")
	release := make(chan struct{})
	f.llm.Script(llmtest.Reply{Tokens: []string{"First", " answer."}, Hold: release, HoldAfter: 1})
	first := f.alice.Say(room, "Ada, first question")
	f.alice.Wait("🧠 on the first question", bottest.ReactionTo(first, reactThinking))
	second := f.bob.Say(room, "Ada, second question")
	f.alice.Wait("bob's waiting question is told", noticeReplyTo(f.botID, second, "earlier question"))
	third := f.alice.Say(room, "Ada, third question")
	f.alice.Wait("alice's waiting question is told", noticeReplyTo(f.botID, third, "earlier question"))
	close(release)
	f.alice.Wait("✅ on the first", bottest.ReactionTo(first, reactDone))
	f.alice.Wait("✅ on the second", bottest.ReactionTo(second, reactDone))
	f.alice.Wait("✅ on the third", bottest.ReactionTo(third, reactDone))
}
