package bot

import (
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/internal/dendritetest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestBridgeRestart stops the bridge, lets members talk while it is down,
// and starts it again on the same database: it must not answer the backlog,
// must come back as the same device, and must still read and write
// encrypted messages.
func TestBridgeRestart(t *testing.T) {
	hs := dendritetest.Start(t)
	llm := llmtest.New(t)
	acct := registerBot(t, hs, "ada")
	settings := botSettings(hs, llm, acct, t.TempDir(), nil)
	alice := newMember(t, hs, "alice", true)

	first := startBot(t, settings)
	device := first.bot.DeviceID()
	room := alice.createRoom(&mautrix.ReqCreateRoom{Name: "restart", InitialState: encryptedRoom(), Invite: []id.UserID{acct.userID}})
	alice.wait("bot joins", membershipOf(room, acct.userID, event.MembershipJoin))
	asked := alice.say(room, "Ada, before the restart")
	alice.wait("reply before the restart", replyTo(acct.userID, asked, event.MsgText))
	alice.wait("✅", reactionTo(asked, reactDone))
	first.stop()

	backlog := []id.EventID{
		alice.say(room, "Ada, this was asked while you were away"),
		alice.say(room, "hey ada, and this too"),
	}
	time.Sleep(300 * time.Millisecond) // let the homeserver file them into the sync stream

	second := startBot(t, settings)
	if got := second.bot.DeviceID(); got != device {
		t.Errorf("device changed across the restart: %s -> %s", device, got)
	}
	checkCrossSigned(t, alice, second)
	llm.Script(llmtest.Reply{Tokens: []string{"still encrypted"}})
	live := alice.say(room, "Ada, after the restart")
	reply := alice.wait("reply after the restart", replyTo(acct.userID, live, event.MsgText))
	alice.wait("✅", reactionTo(live, reactDone))
	if reply.Content.AsMessage().Body != "still encrypted" || reply.Mautrix.EventSource&event.SourceDecrypted == 0 {
		t.Errorf("want a decrypted reply after the restart, got %s", describe(reply))
	}
	for _, ev := range backlog {
		if got := alice.find(anyReactionTo(ev)); len(got) > 0 {
			t.Errorf("the bot answered the backlog: %s", describe(got[0]))
		}
	}
	// The backlog is still read as context for the live question.
	reqs := llm.ChatRequests()
	if prompt := reqs[len(reqs)-1].Messages; !strings.Contains(strings.ToLower(fmtMessages(prompt)), "asked while you were away") {
		t.Errorf("the backlog should be context for the next answer")
	}
	if intros := alice.find(messageFrom(room, acct.userID, event.MsgNotice)); len(intros) != 1 {
		t.Errorf("want one intro across restarts, got %d", len(intros))
	}
	assertNoPlaintextFrom(t, alice, room, acct.userID)
	if strings.Contains(second.logs.String(), "SAVE THIS RECOVERY KEY") {
		t.Errorf("the recovery key was printed again after the restart")
	}
}
