package bot

import (
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// noticeReplyTo matches a notice from sender replying to target whose body
// contains text.
func noticeReplyTo(sender id.UserID, target id.EventID, text string) func(*event.Event) bool {
	reply := bottest.ReplyTo(sender, target, event.MsgNotice)
	return func(e *event.Event) bool {
		return reply(e) && strings.Contains(e.Content.AsMessage().Body, text)
	}
}

// TestHungModelLeavesCommandsFree (issue 27, item 2): while the model hangs
// on one question and a second waits behind it, `!ada status` answers at
// once and counts them, and the second question says that it waits; once
// the chats have timed out or failed with HTTP 500, the status shows the
// model ❌ with why, and ✅ again after an answer, noting the failures.
func TestHungModelLeavesCommandsFree(t *testing.T) {
	_, llm, acct, settings, alice := newOneMember(t, func(s *botSetup) { s.ChatTimeout = 6 * time.Second })
	startBot(t, settings)
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "hung model", Invite: []id.UserID{acct.UserID}})
	alice.Wait("bot joins", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))
	alice.Wait("intro", bottest.MessageFrom(room, acct.UserID, event.MsgNotice))
	status := func(what string) string {
		t.Helper()
		asked := alice.Say(room, "!ada status")
		return alice.Wait(what, bottest.ReplyTo(acct.UserID, asked, event.MsgNotice)).Content.AsMessage().Body
	}

	llm.Default(llmtest.Reply{Hang: true})
	first := alice.Say(room, "Ada, first question")
	alice.Wait("🧠 on the first question", bottest.ReactionTo(first, reactThinking))
	second := alice.Say(room, "Ada, second question")
	body := status("status while the model hangs")
	if got := alice.Find(bottest.AnyReactionTo(first)); len(got) != 1 {
		t.Errorf("the status waited for the hung question: it came after %d reactions to it", len(got))
	}
	if !strings.Contains(body, "being answered or waiting: 2") {
		t.Errorf("the status should count the two questions, got:\n%s", body)
	}
	alice.Wait("🧠 on the waiting question", bottest.ReactionTo(second, reactThinking))
	alice.Wait("the waiting question says so", noticeReplyTo(acct.UserID, second, "earlier question"))

	// Both time out, one after the other, in order.
	alice.Wait("❌ on the first question", bottest.ReactionTo(first, reactFailed))
	alice.Wait("❌ on the second question", bottest.ReactionTo(second, reactFailed))
	if body := status("status after the timeouts"); !strings.Contains(body, "Language model: ❌") || !strings.Contains(body, "timed out") {
		t.Errorf("the status should show the model failing, got:\n%s", body)
	}

	llm.Default(llmtest.Reply{})
	llm.Script(llmtest.Reply{Status: 500, Error: "model crashed"}, llmtest.Reply{Tokens: []string{"fine again"}})
	crashed := alice.Say(room, "Ada, third question")
	alice.Wait("❌ on the HTTP 500", bottest.ReactionTo(crashed, reactFailed))
	if body := status("status after HTTP 500"); !strings.Contains(body, "Language model: ❌") || !strings.Contains(body, "last 3 of 3 chats failed") {
		t.Errorf("the status should show the model failing, got:\n%s", body)
	}
	answered := alice.Say(room, "Ada, fourth question")
	alice.Wait("✅ on the fourth question", bottest.ReactionTo(answered, reactDone))
	if body := status("status after an answer"); !strings.Contains(body, "Language model: ✅") || !strings.Contains(body, "3 of the last 4 chats failed") {
		t.Errorf("the status should show the model answering again, with the failures, got:\n%s", body)
	}
}
