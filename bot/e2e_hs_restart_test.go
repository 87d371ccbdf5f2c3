package bot

import (
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestBridgeSurvivesHomeserverRestart: the homeserver is killed and started
// again under a running bridge. The bridge reconnects by itself and answers
// the next question once, and the question before the restart is not
// answered a second time (no duplicate answers from a replayed sync).
func TestBridgeSurvivesHomeserverRestart(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	startBot(t, botSettings(hs, llm, acct, t.TempDir()))
	alice := bottest.NewMember(t, hs, "alice", false)
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "restart", Invite: []id.UserID{acct.UserID}})
	alice.Wait("bot joins", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))

	before := alice.Say(room, "Ada, before the restart?")
	alice.Wait("✅ before", bottest.ReactionTo(before, reactDone))

	restarted := time.Now()
	hs.Restart(t)
	after := alice.Say(room, "Ada, after the restart?")
	sent := time.Since(restarted)
	reply := alice.Wait("reply after the restart", bottest.ReplyTo(acct.UserID, after, event.MsgText))
	t.Logf("sent %s after, reply sent by the bridge %s after (server time), arrived at alice %s after", sent.Round(time.Millisecond),
		time.UnixMilli(reply.Timestamp).Sub(restarted).Round(time.Millisecond), alice.ArrivedAt(reply.ID).Sub(restarted).Round(time.Millisecond))
	alice.Wait("✅ after", bottest.ReactionTo(after, reactDone))
	t.Logf("answered %s after the homeserver restart began", time.Since(restarted).Round(time.Millisecond))

	// A replayed sync, if any, would be answered in the room's order, before
	// a later command: once its reply is here, the count is final.
	marker := alice.Say(room, "!ada help")
	alice.Wait("reply to the marker", bottest.ReplyTo(acct.UserID, marker, event.MsgNotice))
	for _, q := range []id.EventID{before, after} {
		if n := len(alice.Find(bottest.ReplyTo(acct.UserID, q, event.MsgText))); n != 1 {
			t.Errorf("question %s got %d answers, want 1", q, n)
		}
	}
}
