package bot

import (
	"time"

	"os"
	"path/filepath"
	"slices"
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
	notices := alice.Find(bottest.MessageFrom(room, acct.UserID, event.MsgNotice))
	intros := slices.DeleteFunc(slices.Clone(notices), func(e *event.Event) bool { return e.Content.AsMessage().RelatesTo.GetReplyTo() != "" })
	if len(intros) != 1 {
		t.Errorf("want one intro across restarts, got %d", len(intros))
	}
	// The room is a direct chat (alice and the bot): the first message of
	// the backlog, and only it, is told that Ada was offline (offline.go).
	if offline := alice.Find(noticeReplyTo(acct.UserID, backlog[0], "offline when you wrote this")); len(offline) != 1 || len(notices) != 2 {
		t.Errorf("want one offline notice, on the first message sent while the bridge was down; got %d of %d notices", len(offline), len(notices))
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

// newOneMember is what a test of one member and the bridge needs: a
// homeserver, the fake LLM, the bridge's account and its settings on a fresh
// DATA_DIR (changed by change), and alice, unencrypted.
func newOneMember(t *testing.T, change ...func(*botSetup)) (*bottest.Homeserver, *llmtest.Server, bottest.Account, botSetup, *bottest.Member) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	return hs, llm, acct, botSettings(hs, llm, acct, t.TempDir(), change...), bottest.NewMember(t, hs, "alice", false)
}

// TestQuietRestartAnswersFirstMessage restarts the bridge with nothing posted
// while it was down (issue 27, item 1): the first message after start-up must
// be answered. The catch-up /sync then hands back the token it was given, so
// the first live /sync resumes from the same token as the catch-up did, and
// its messages were once taken for backlog and dropped without a sign.
func TestQuietRestartAnswersFirstMessage(t *testing.T) {
	_, llm, acct, settings, alice := newOneMember(t)

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

// TestStopAnswersWhatItAccepted (issue 21, the drain): questions accepted
// before a stop, the one being answered and the one waiting behind it, are
// answered while the bridge stops (within SHUTDOWN_GRACE_SECONDS), no longer
// syncing; after the restart neither is answered again.
func TestStopAnswersWhatItAccepted(t *testing.T) {
	_, llm, acct, settings, alice := newOneMember(t, func(s *botSetup) { s.ShutdownGrace = time.Minute })

	first := startBot(t, settings)
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "drain", Invite: []id.UserID{acct.UserID}})
	alice.Wait("bot joins", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))

	release := make(chan struct{})
	llm.Default(llmtest.Reply{Tokens: []string{"answered while stopping"}, Hold: release})
	running := alice.Say(room, "Ada, a question the model is working on")
	alice.Wait("🧠 on the running question", bottest.ReactionTo(running, reactThinking))
	waiting := alice.Say(room, "Ada, a question waiting behind it")
	alice.Wait("🧠 on the waiting question", bottest.ReactionTo(waiting, reactThinking))

	stopped := make(chan struct{})
	go func() { defer close(stopped); first.stop() }()
	waitFor(t, "the bridge stopping", func() bool { return first.bot.Status().State == StateStopping })
	close(release)
	for _, q := range []id.EventID{running, waiting} {
		alice.Wait("the answer given while stopping", bottest.ReplyTo(acct.UserID, q, event.MsgText))
		alice.Wait("✅ while stopping", bottest.ReactionTo(q, reactDone))
	}
	<-stopped
	for _, q := range []id.EventID{running, waiting} {
		if got := alice.Find(bottest.ReactionTo(q, reactFailed)); len(got) > 0 {
			t.Errorf("an answered question got ❌ at the stop: %s", bottest.Describe(got[0]))
		}
	}

	second := startBot(t, settings)
	llm.Default(llmtest.Reply{Tokens: []string{"back"}})
	live := alice.Say(room, "Ada, are you back?")
	alice.Wait("✅ after the restart", bottest.ReactionTo(live, reactDone))
	for _, q := range []id.EventID{running, waiting} {
		if got := alice.Find(bottest.ReplyTo(acct.UserID, q, event.MsgText)); len(got) != 1 {
			t.Errorf("a question accepted before the stop was answered %d times, want once", len(got))
		}
	}
	second.stop()
}

// TestQuestionsCaughtByAStop (issue 27, item 3): questions accepted and not
// answered when the bridge's shutdown grace ends, the one being answered and the one
// waiting behind it, get ❌ and a notice to ask again, not a 🧠 for ever;
// after the restart, the first message of a direct chat sent while the
// bridge was down gets one "I was offline" notice, and a group room's
// backlog stays silent.
func TestQuestionsCaughtByAStop(t *testing.T) {
	hs, llm, acct, settings, alice := newOneMember(t, func(s *botSetup) { s.ShutdownGrace = time.Second })
	bob := bottest.NewMember(t, hs, "bob", false)

	first := startBot(t, settings)
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "stop", Invite: []id.UserID{acct.UserID, bob.Client.UserID}})
	bob.Join(room)
	dm := alice.CreateRoom(&mautrix.ReqCreateRoom{IsDirect: true, Preset: "trusted_private_chat", Invite: []id.UserID{acct.UserID}})
	alice.Wait("bot joins the room", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))
	alice.Wait("bot joins the DM", bottest.MembershipOf(dm, acct.UserID, event.MembershipJoin))

	llm.Default(llmtest.Reply{Hang: true})
	hung := alice.Say(room, "Ada, a question the model hangs on")
	alice.Wait("🧠 on the hung question", bottest.ReactionTo(hung, reactThinking))
	waiting := alice.Say(room, "Ada, a question waiting behind it")
	alice.Wait("🧠 on the waiting question", bottest.ReactionTo(waiting, reactThinking))
	first.stop()
	for _, q := range []id.EventID{hung, waiting} {
		alice.Wait("❌ at the stop", bottest.ReactionTo(q, reactFailed))
		alice.Wait("the stop notice", noticeReplyTo(acct.UserID, q, "restarted before I could answer"))
	}

	// Written while the bridge is down.
	llm.Default(llmtest.Reply{Tokens: []string{"here again"}})
	inDM := []id.EventID{alice.Say(dm, "are you there?"), alice.Say(dm, "hello?")}
	inRoom := alice.Say(room, "Ada, asked while you were away")
	for _, ev := range append(inDM, inRoom) {
		alice.Wait("backlog filed", func(e *event.Event) bool { return e.ID == ev })
	}

	startBot(t, settings)
	alice.Wait("the offline notice in the DM", noticeReplyTo(acct.UserID, inDM[0], "offline when you wrote this"))
	live := alice.Say(dm, "and now?")
	alice.Wait("a live answer in the DM", bottest.ReplyTo(acct.UserID, live, event.MsgText))
	alice.Wait("✅ on the live question", bottest.ReactionTo(live, reactDone))
	if got := alice.Find(bottest.ReplyTo(acct.UserID, inDM[1], event.MsgNotice)); len(got) > 0 {
		t.Errorf("one offline notice per chat, but the second message got %s", bottest.Describe(got[0]))
	}
	for _, ev := range append(inDM, inRoom) {
		if got := alice.Find(bottest.ReplyTo(acct.UserID, ev, event.MsgText)); len(got) > 0 {
			t.Errorf("the backlog was answered: %s", bottest.Describe(got[0]))
		}
	}
	if got := alice.Find(bottest.ReplyTo(acct.UserID, inRoom, event.MsgNotice)); len(got) > 0 {
		t.Errorf("a group room's backlog should stay silent, got %s", bottest.Describe(got[0]))
	}
}
