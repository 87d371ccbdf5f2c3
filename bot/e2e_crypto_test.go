package bot

import (
	"context"
	"strings"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// assertNoPlaintextFrom fails if sender put a plaintext m.room.message into
// room, as the member's client received it from /sync (before decryption).
func assertNoPlaintextFrom(t *testing.T, m *bottest.Member, room id.RoomID, sender id.UserID) {
	t.Helper()
	encrypted := 0
	for _, r := range m.RawFrom(room, sender) {
		switch r.Type {
		case event.EventMessage.Type:
			t.Errorf("plaintext m.room.message %s from %s in encrypted room %s", r.ID, sender, room)
		case event.EventEncrypted.Type:
			encrypted++
		}
	}
	if encrypted == 0 {
		t.Errorf("no encrypted events from %s in %s at all", sender, room)
	}
}

func TestBridgeEncrypted(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	bot := startBot(t, botSettings(hs, llm, acct, t.TempDir()))
	alice := bottest.NewMember(t, hs, "alice", true)
	bob := bottest.NewMember(t, hs, "bob", true)

	t.Run("CrossSigned", func(t *testing.T) { checkCrossSigned(t, alice, bot) })

	t.Run("Room", func(t *testing.T) {
		room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "secret", InitialState: bottest.EncryptedRoom(),
			Invite: []id.UserID{bob.Client.UserID, acct.UserID}})
		bob.Join(room)
		alice.Wait("bot joins", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))
		// The intro is the bot's first send into the room, right after
		// joining: it must already be encrypted.
		intro := alice.Wait("intro", bottest.MessageFrom(room, acct.UserID, event.MsgNotice))
		if intro.Mautrix.EventSource&event.SourceDecrypted == 0 {
			t.Errorf("the intro was not decrypted: it was sent in plaintext")
		}
		llm.Script(llmtest.Reply{Tokens: []string{"the secret ", "answer"}})
		asked := alice.Say(room, "Ada, tell me a secret")
		reply := alice.Wait("reply", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
		alice.Wait("✅", bottest.ReactionTo(asked, reactDone))
		if c := reply.Content.AsMessage(); c.Body != "the secret answer" || reply.Mautrix.EventSource&event.SourceDecrypted == 0 {
			t.Errorf("want the decrypted reply %q, got %q (source %v)", "the secret answer", c.Body, reply.Mautrix.EventSource)
		}
		// bob, another member with his own device, can read it too.
		bob.Wait("bob decrypts the reply", func(e *event.Event) bool { return e.ID == reply.ID && e.Content.AsMessage().Body != "" })
		assertNoPlaintextFrom(t, alice, room, acct.UserID)

		t.Run("Undecryptable", func(t *testing.T) {
			// A Megolm event of a known session whose ciphertext is garbage.
			enc, err := alice.Crypto.Encrypt(context.Background(), room, event.EventMessage,
				&event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, you cannot read this"})
			if err != nil {
				t.Fatal(err)
			}
			enc.MegolmCiphertext = []byte("AwgAEhBub3QgYSByZWFsIGNpcGhlcnRleHQ")
			resp, err := alice.Client.SendMessageEvent(context.Background(), room, event.EventEncrypted, enc)
			if err != nil {
				t.Fatal(err)
			}
			alice.Wait("🔒 on the undecryptable message", bottest.ReactionTo(resp.EventID, reactUndecryptable))
			n := alice.Wait("notice about it", bottest.ReplyTo(acct.UserID, resp.EventID, event.MsgNotice))
			if !strings.Contains(n.Content.AsMessage().Body, "could not decrypt") {
				t.Errorf("notice: %q", n.Content.AsMessage().Body)
			}
		})
	})

	t.Run("RoomMemory", func(t *testing.T) {
		var rooms [2]id.RoomID
		for i, name := range []string{"secret memory A", "secret memory B"} {
			rooms[i] = alice.CreateRoom(&mautrix.ReqCreateRoom{Name: name, InitialState: bottest.EncryptedRoom(), Invite: []id.UserID{acct.UserID}})
			alice.Wait("bot joins "+name, bottest.MembershipOf(rooms[i], acct.UserID, event.MembershipJoin))
			alice.Wait("intro in "+name, bottest.MessageFrom(rooms[i], acct.UserID, event.MsgNotice))
		}
		checkRoomMemory(t, llm, bot, alice, acct.UserID, rooms[0], rooms[1])
	})

	t.Run("TakingBack", func(t *testing.T) { checkTakingBackEncrypted(t, llm, alice, bob, acct.UserID) })

	t.Run("DM", func(t *testing.T) {
		dm := alice.CreateRoom(&mautrix.ReqCreateRoom{IsDirect: true, Preset: "trusted_private_chat",
			InitialState: bottest.EncryptedRoom(), Invite: []id.UserID{acct.UserID}})
		alice.Wait("bot joins the DM", bottest.MembershipOf(dm, acct.UserID, event.MembershipJoin))
		llm.Script(llmtest.Reply{Tokens: []string{"a private answer"}})
		asked := alice.Say(dm, "just between us")
		reply := alice.Wait("reply in the DM", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
		if reply.Content.AsMessage().Body != "a private answer" {
			t.Errorf("got %q", reply.Content.AsMessage().Body)
		}
		alice.Wait("✅", bottest.ReactionTo(asked, reactDone))
		assertNoPlaintextFrom(t, alice, dm, acct.UserID)
	})

	if n := strings.Count(bot.logs.String(), "recovery key was written"); n != 1 {
		t.Errorf("the recovery key should be made and saved exactly once, got %d", n)
	}
}

// checkCrossSigned asks the homeserver, as another user would, whether the
// bot's device is signed by the bot's self-signing key.
func checkCrossSigned(t *testing.T, m *bottest.Member, e *botEnv) {
	t.Helper()
	botID, dev := e.bot.UserID(), e.bot.DeviceID()
	resp, err := m.Client.QueryKeys(context.Background(), &mautrix.ReqQueryKeys{DeviceKeys: mautrix.DeviceKeysRequest{botID: {}}})
	if err != nil {
		t.Fatal(err)
	}
	ssk, ok := resp.SelfSigningKeys[botID]
	if !ok || len(ssk.Keys) == 0 {
		t.Fatalf("the bot has no self-signing key published")
	}
	if _, ok := resp.MasterKeys[botID]; !ok {
		t.Fatalf("the bot has no master key published")
	}
	device, ok := resp.DeviceKeys[botID][dev]
	if !ok {
		t.Fatalf("the bot's device %s is not published", dev)
	}
	sskID := id.NewKeyID(id.KeyAlgorithmEd25519, ssk.FirstKey().String())
	if _, signed := device.Signatures[botID][sskID]; !signed {
		t.Errorf("device %s is not signed by the self-signing key %s: %v", dev, sskID, device.Signatures)
	}
}
