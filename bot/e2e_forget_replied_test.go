package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core"
)

// testForgottenRepliedTo: after bob's `!ada forget me`, a reply to one of
// his earlier messages (which the homeserver still serves) brings none of
// its words into the prompt: the reply chain Ada fetches stops at it, and a
// quote of it at the start of the reply's body is left out. What he says
// afterwards comes along as before, and a question he asks while the
// forgetting runs is answered. Forgotten everywhere through core (as
// the API does), the same holds in another room.
func (f *roomsFixture) testForgottenRepliedTo(t *testing.T) {
	room := f.groupRoom(t, "forgotten replied to")
	old := f.bob.Say(room, "my vault code is quuxfrobnic")
	forget := f.bob.Say(room, "!ada forget me")
	// A question bob asks right after, while the forgetting runs, is his
	// new word: it is answered.
	f.ask(t, f.bob, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, am I still heard?"})
	f.bob.Wait("forget me is answered", bottest.ReplyTo(f.botID, forget, event.MsgNotice))

	replyTo := func(room id.RoomID, target id.EventID, body string) string {
		t.Helper()
		q := &event.MessageEventContent{MsgType: event.MsgText, Body: body}
		q.RelatesTo = (&event.RelatesTo{}).SetReplyTo(target)
		f.ask(t, f.alice, room, q)
		return lastPrompt(t, f.llm)
	}
	if p := replyTo(room, old, "Ada, what does he mean?"); strings.Contains(p, "quuxfrobnic") {
		t.Errorf("a reply to the forgotten message fetched it back into the prompt:\n%s", p)
	}
	// A quote in another form than the standard reply fallback.
	p := replyTo(room, old, "> bob: my vault code is quuxfrobnic\n\nAda, is that so?")
	if strings.Contains(p, "quuxfrobnic") {
		t.Errorf("a reply's quote of the forgotten message reached the prompt:\n%s", p)
	}
	if !strings.Contains(p, "is that so?") {
		t.Errorf("the reply's own words are missing from the prompt:\n%s", p)
	}

	// Forgotten everywhere, through core: another room's reply chain too.
	other := f.groupRoom(t, "forgotten everywhere")
	said := f.bob.Say(other, "my locker is zebrafinch")
	if _, err := f.bot.svc.Forget(context.Background(), core.ForgetRequest{Entity: f.bob.Client.UserID.String()}); err != nil {
		t.Fatal(err)
	}
	if p := replyTo(other, said, "Ada, which locker?"); strings.Contains(p, "zebrafinch") {
		t.Errorf("a reply to a message of a member forgotten everywhere fetched it back:\n%s", p)
	}

	// What bob says after the forgetting is heard again.
	later := f.bob.Say(room, "my new motto is plinkerdoo")
	if p := replyTo(room, later, "Ada, nice motto?"); !strings.Contains(p, "plinkerdoo") {
		t.Errorf("bob's message after the forgetting is missing:\n%s", p)
	}
}

// testForgetMeStampedAhead: a `!ada forget me` whose stamp its client set
// ten years ahead (Dendrite honours `ts` for any sender) records the
// forgetting as of now (sentAt): what bob says next is heard, a reply to it
// brings it into the prompt, rather than being taken as said before a
// forgetting for ten years.
func (f *roomsFixture) testForgetMeStampedAhead(t *testing.T) {
	room := f.groupRoom(t, "forget me stamped ahead")
	forget := f.bob.SendAt(room, &event.MessageEventContent{MsgType: event.MsgText, Body: "!ada forget me"},
		time.Now().AddDate(10, 0, 0))
	f.bob.Wait("forget me is answered", bottest.ReplyTo(f.botID, forget, event.MsgNotice))
	later := f.bob.Say(room, "my new motto is wobblequest")
	q := &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, nice motto?"}
	q.RelatesTo = (&event.RelatesTo{}).SetReplyTo(later)
	f.ask(t, f.alice, room, q)
	if p := lastPrompt(t, f.llm); !strings.Contains(p, "wobblequest") {
		t.Errorf("bob's message after his forgetting is missing, as if said before a forgetting ten years ahead:\n%s", p)
	}
}
