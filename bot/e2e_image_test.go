package bot

import (
	"bytes"
	"strings"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
	"github.com/ada-chat/ada/core/specialists/ocr/ocrtest"
)

// ocrSection is the prompt heading core gives OCR context.
const ocrSection = "Text read from the user's image (OCR)"

// imageFixture is one homeserver and bridge for TestBridgeImages; alice and
// bob have their own end-to-end encryption, so they can use every kind of room.
type imageFixture struct {
	llm        *llmtest.Server
	botID      id.UserID
	alice, bob *bottest.Member
	invoice    []byte // a PNG that reads "Invoice 4711 due Friday"
}

// ocrLimit is OCR_MAX_BYTES for these tests: above the rendered invoice,
// small enough to test the limits with small uploads.
const ocrLimit = 32 << 10

func TestBridgeImages(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	startBot(t, botSettings(hs, llm, acct, t.TempDir(), func(s *botSetup) { s.OCRMaxBytes = ocrLimit }))
	f := &imageFixture{llm: llm, botID: acct.UserID,
		alice:   bottest.NewMember(t, hs, "alice", true),
		bob:     bottest.NewMember(t, hs, "bob", true),
		invoice: ocrtest.Encode(t, ocrtest.Render(t, "Invoice 4711 due Friday"), "png"),
	}
	if len(f.invoice) >= ocrLimit {
		t.Fatalf("the rendered invoice (%d bytes) must be under the test limit", len(f.invoice))
	}
	// Each subtest has its own room (images are per room and sender) and
	// finds its model request by its question, so they run side by side.
	for name, run := range map[string]func(*testing.T){
		"ReplyToImage": f.testReplyToImage, "Caption": f.testCaption, "FollowUp": f.testFollowUp,
		"Encrypted": f.testEncrypted, "EncryptedDM": f.testEncryptedDM, "Refused": f.testRefused,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			run(t)
		})
	}
}

// room makes a room of alice, bob and the bot (three members: not a DM).
func (f *imageFixture) room(t *testing.T, name string, encrypted bool) id.RoomID {
	t.Helper()
	req := &mautrix.ReqCreateRoom{Name: name, Invite: []id.UserID{f.bob.Client.UserID, f.botID}}
	if encrypted {
		req.InitialState = bottest.EncryptedRoom()
	}
	room := f.alice.CreateRoom(req)
	f.bob.Join(room)
	f.alice.Wait("bot joins "+name, bottest.MembershipOf(room, f.botID, event.MembershipJoin))
	f.alice.Wait("intro in "+name, bottest.MessageFrom(room, f.botID, event.MsgNotice))
	return room
}

func (f *imageFixture) image(caption string, encrypted bool) bottest.Upload {
	return bottest.Upload{Data: f.invoice, MimeType: "image/png", FileName: "invoice.png", Caption: caption, Encrypted: encrypted}
}

// answered waits for the bot's reply and ✅ to `asked` and returns what the
// model was sent for it: the request whose question is `question`.
func (f *imageFixture) answered(t *testing.T, m *bottest.Member, asked id.EventID, question string) string {
	t.Helper()
	m.Wait("reply", bottest.ReplyTo(f.botID, asked, event.MsgText))
	m.Wait("✅", bottest.ReactionTo(asked, reactDone))
	if p, ok := f.requestFor(question); ok {
		return p
	}
	t.Fatalf("the model was never asked %q", question)
	return ""
}

// requestFor finds the newest model request whose question is q.
func (f *imageFixture) requestFor(q string) (string, bool) {
	reqs := f.llm.ChatRequests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if msgs := reqs[i].Messages; len(msgs) > 0 && msgs[len(msgs)-1].Content == q {
			return fmtMessages(msgs), true
		}
	}
	return "", false
}

// wantInvoice checks that the model got the words tesseract read.
func wantInvoice(t *testing.T, prompt string) {
	t.Helper()
	if !strings.Contains(prompt, ocrSection) {
		t.Fatalf("no OCR section in the prompt:\n%s", prompt)
	}
	for _, w := range []string{"Invoice", "4711", "Friday"} {
		if !strings.Contains(prompt, w) {
			t.Errorf("the prompt lacks the OCR'd word %q:\n%s", w, prompt)
		}
	}
}

func reply(text string, to id.EventID) *event.MessageEventContent {
	return &event.MessageEventContent{MsgType: event.MsgText, Body: text, RelatesTo: (&event.RelatesTo{}).SetReplyTo(to)}
}

// Bob posts a picture; alice replies to it, asking Ada. The picture alone
// does not wake the bot.
func (f *imageFixture) testReplyToImage(t *testing.T) {
	ocrtest.RequireTesseract(t)
	room := f.room(t, "reply to image", false)
	img := f.bob.SendUpload(room, f.image("", false))
	asked := f.alice.Send(room, reply("Ada, what does this say?", img))
	wantInvoice(t, f.answered(t, f.alice, asked, "what does this say?"))
	if n := len(f.alice.Find(bottest.AnyReactionTo(img))); n != 0 {
		t.Errorf("the uncaptioned image in a group room was answered (%d reactions)", n)
	}
}

func (f *imageFixture) testCaption(t *testing.T) {
	ocrtest.RequireTesseract(t)
	room := f.room(t, "caption", false)
	asked := f.alice.SendUpload(room, f.image("Ada, when is the invoice due?", false))
	wantInvoice(t, f.answered(t, f.alice, asked, "when is the invoice due?"))
	// A file whose name (not caption) contains the bot's name is no address.
	named := f.alice.SendUpload(room, bottest.Upload{Data: f.invoice, MimeType: "image/png", FileName: "ada.png"})
	f.ask(t, f.alice, room, "Ada, just checking", "just checking")
	if n := len(f.alice.Find(bottest.AnyReactionTo(named))); n != 0 {
		t.Errorf("an image named ada.png woke the bot")
	}
}

// ask sends a plain message and returns what the model was sent.
func (f *imageFixture) ask(t *testing.T, m *bottest.Member, room id.RoomID, text, question string) string {
	t.Helper()
	return f.answered(t, m, m.Say(room, text), question)
}

// The common pattern: upload first, then ask in the next message. Only
// the sender's own recent image comes along.
func (f *imageFixture) testFollowUp(t *testing.T) {
	ocrtest.RequireTesseract(t)
	room := f.room(t, "follow-up", false)
	f.bob.SendUpload(room, f.image("", false))
	wantInvoice(t, f.ask(t, f.bob, room, "Ada, what is the invoice number?", "what is the invoice number?"))
	if p := f.ask(t, f.alice, room, "Ada, how are you?", "how are you?"); strings.Contains(p, ocrSection) {
		t.Errorf("bob's image was attached to alice's question:\n%s", p)
	}
	// A reply to a text message is about that message, not the image.
	said := f.bob.Say(room, "lunch at noon")
	if p := f.answered(t, f.bob, f.bob.Send(room, reply("Ada, is that early?", said)), "is that early?"); strings.Contains(p, ocrSection) {
		t.Errorf("a reply to a text message got the image:\n%s", p)
	}
}

// In an encrypted room the image is an encrypted attachment: read from a
// caption, and fetched and decrypted again for a reply.
func (f *imageFixture) testEncrypted(t *testing.T) {
	ocrtest.RequireTesseract(t)
	room := f.room(t, "encrypted images", true)
	asked := f.alice.SendUpload(room, f.image("Ada, what does my invoice say?", true))
	wantInvoice(t, f.answered(t, f.alice, asked, "what does my invoice say?"))

	img := f.bob.SendUpload(room, f.image("", true))
	wantInvoice(t, f.answered(t, f.alice, f.alice.Send(room, reply("Ada, and this one?", img)), "and this one?"))
	assertNoPlaintextFrom(t, f.alice, room, f.botID)
}

// An image alone in a direct chat is a question about it.
func (f *imageFixture) testEncryptedDM(t *testing.T) {
	ocrtest.RequireTesseract(t)
	dm := f.alice.CreateRoom(&mautrix.ReqCreateRoom{IsDirect: true, Preset: "trusted_private_chat",
		InitialState: bottest.EncryptedRoom(), Invite: []id.UserID{f.botID}})
	f.alice.Wait("bot joins the DM", bottest.MembershipOf(dm, f.botID, event.MembershipJoin))
	wantInvoice(t, f.answered(t, f.alice, f.alice.SendUpload(dm, f.image("", true)), defaultImagePrompt))
}

// Uploads that cannot be read get ❌ and a plain notice; the model is not
// asked. None of these needs tesseract: each is refused before OCR runs.
func (f *imageFixture) testRefused(t *testing.T) {
	room := f.room(t, "refused", false)
	cases := []struct {
		name string
		up   bottest.Upload
		want string
	}{
		{"text file", bottest.Upload{MsgType: event.MsgFile, Data: []byte("just words"), MimeType: "text/plain", FileName: "notes.txt"}, "text/plain, not an image"},
		{"not an image", bottest.Upload{Data: []byte("this is not a PNG at all"), MimeType: "image/png", FileName: "fake.png"}, "not a supported image"},
		{"declared too large", bottest.Upload{Data: f.invoice, MimeType: "image/png", FileName: "huge.png", Size: 50 << 20}, "too large"},
		{"too large", bottest.Upload{Data: bytes.Repeat([]byte{0x89}, ocrLimit+1), MimeType: "image/png", FileName: "big.png", Size: -1}, "too large"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.up.Caption = "Ada, read this please"
			asked := f.alice.SendUpload(room, c.up)
			f.alice.Wait("❌", bottest.ReactionTo(asked, reactFailed))
			notice := f.alice.Wait("notice", bottest.ReplyTo(f.botID, asked, event.MsgNotice)).Content.AsMessage().Body
			if !strings.Contains(notice, c.want) {
				t.Errorf("notice %q lacks %q", notice, c.want)
			}
			t.Log(notice)
		})
	}
	if _, asked := f.requestFor("read this please"); asked {
		t.Errorf("the model was asked about an unreadable upload")
	}
}
