package bot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestBridgeRestart stops the bridge, lets members talk while it is down,
// and starts it again on the same database: it must not answer the backlog,
// must come back as the same device, and must still read and write
// encrypted messages.
func TestBridgeRestart(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	dataDir := t.TempDir()
	settings := botSettings(hs, llm, acct, dataDir)
	alice := bottest.NewMember(t, hs, "alice", true)

	first := startBot(t, settings)
	device := first.bot.DeviceID()
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "restart", InitialState: bottest.EncryptedRoom(), Invite: []id.UserID{acct.UserID}})
	alice.Wait("bot joins", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))
	asked := alice.Say(room, "Ada, before the restart")
	alice.Wait("reply before the restart", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
	alice.Wait("✅", bottest.ReactionTo(asked, reactDone))
	first.stop()

	backlog := []id.EventID{
		alice.Say(room, "Ada, this was asked while you were away"),
		alice.Say(room, "hey ada, and this too"),
	}
	// The homeserver has filed them into the sync stream once alice sees them.
	for _, ev := range backlog {
		alice.Wait("backlog filed", func(e *event.Event) bool { return e.ID == ev })
	}

	second := startBot(t, settings)
	if got := second.bot.DeviceID(); got != device {
		t.Errorf("device changed across the restart: %s -> %s", device, got)
	}
	checkCrossSigned(t, alice, second)
	llm.Script(llmtest.Reply{Tokens: []string{"still encrypted"}})
	live := alice.Say(room, "Ada, after the restart")
	reply := alice.Wait("reply after the restart", bottest.ReplyTo(acct.UserID, live, event.MsgText))
	alice.Wait("✅", bottest.ReactionTo(live, reactDone))
	if reply.Content.AsMessage().Body != "still encrypted" || reply.Mautrix.EventSource&event.SourceDecrypted == 0 {
		t.Errorf("want a decrypted reply after the restart, got %s", bottest.Describe(reply))
	}
	for _, ev := range backlog {
		if got := alice.Find(bottest.AnyReactionTo(ev)); len(got) > 0 {
			t.Errorf("the bot answered the backlog: %s", bottest.Describe(got[0]))
		}
	}
	// The backlog is still read as context for the live question.
	reqs := llm.ChatRequests()
	if prompt := reqs[len(reqs)-1].Messages; !strings.Contains(strings.ToLower(fmtMessages(prompt)), "asked while you were away") {
		t.Errorf("the backlog should be context for the next answer")
	}
	if intros := alice.Find(bottest.MessageFrom(room, acct.UserID, event.MsgNotice)); len(intros) != 1 {
		t.Errorf("want one intro across restarts, got %d", len(intros))
	}
	assertNoPlaintextFrom(t, alice, room, acct.UserID)
	if strings.Contains(second.logs.String(), "recovery key was written") {
		t.Errorf("a recovery key was made again after the restart")
	}
	second.stop()

	// The first start wrote its recovery key to a file only the service user
	// can read, said where in its log, and never logged the key itself.
	keyFile := filepath.Join(dataDir, "crypto", "recovery-key")
	key, err := os.ReadFile(keyFile)
	if err != nil {
		t.Fatalf("the recovery key file: %v", err)
	}
	if st, err := os.Stat(keyFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("recovery key file mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	recoveryKey := strings.TrimSpace(string(key))
	if strings.Contains(first.logs.String(), recoveryKey) || strings.Contains(first.logs.String(), "recovery_key=") {
		t.Errorf("the recovery key is in the log")
	}
	if !strings.Contains(first.logs.String(), "file="+keyFile) {
		t.Errorf("the log should say where the recovery key is")
	}

	// A new database (a new device) verifies itself with that key.
	fresh := botSettings(hs, llm, acct, t.TempDir(), func(s *botSetup) { s.RecoveryKey = recoveryKey })
	third := startBot(t, fresh)
	if third.bot.DeviceID() == device {
		t.Fatalf("a new database should log in as a new device")
	}
	checkCrossSigned(t, alice, third)
	if !strings.Contains(third.logs.String(), "verified with the recovery key") {
		t.Errorf("the new device should be verified with MATRIX_RECOVERY_KEY")
	}
}

// TestQuietRestartAnswersFirstMessage restarts the bridge with nothing posted
// while it was down (issue 27, item 1): the first message after start-up must
// be answered. The catch-up /sync then hands back the token it was given, so
// the first live /sync resumes from the same token as the catch-up did, and
// its messages were once taken for backlog and dropped without a sign.
func TestQuietRestartAnswersFirstMessage(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	settings := botSettings(hs, llm, acct, t.TempDir())
	alice := bottest.NewMember(t, hs, "alice", false)

	first := startBot(t, settings)
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "quiet restart", Invite: []id.UserID{acct.UserID}})
	alice.Wait("bot joins", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))
	asked := alice.Say(room, "Ada, before the restart")
	alice.Wait("reply before the restart", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
	alice.Wait("✅ before the restart", bottest.ReactionTo(asked, reactDone))
	first.stop()
	// The echoes of the bridge's last reply and reaction may still be unread:
	// one start reads them in its catch-up, so the next start finds nothing new.
	startBot(t, settings).stop()

	second := startBot(t, settings)
	llm.Script(llmtest.Reply{Tokens: []string{"back again"}})
	live := alice.Say(room, "hey ada, are you there?")
	alice.Wait("🧠 on the first message after the restart", bottest.ReactionTo(live, reactThinking))
	reply := alice.Wait("reply to the first message after the restart", bottest.ReplyTo(acct.UserID, live, event.MsgText))
	alice.Wait("✅ on the first message after the restart", bottest.ReactionTo(live, reactDone))
	if body := reply.Content.AsMessage().Body; body != "back again" {
		t.Errorf("reply after the restart: %q", body)
	}
	if got := alice.Find(bottest.ReplyTo(acct.UserID, asked, event.MsgText)); len(got) != 1 {
		t.Errorf("the question before the restart was answered %d times, want once", len(got))
	}
	second.stop()
}
