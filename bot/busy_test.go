package bot

import (
	"context"
	"strings"
	"testing"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
)

// TestBridgeBusyNotice: a message refused because its room's queue was full
// (the room queue calls reportBusy; roomqueue's TestQueueReportsDrops) is never
// dropped silently when it was meant for the bot: ❌ on each such message,
// one plain "busy" notice for a flood rather than one per message, and
// nothing on chatter the bot would not have answered anyway.
func TestBridgeBusyNotice(t *testing.T) {
	f := newRoomsFixture(t)
	room := f.groupRoom(t, "busy")
	first, _ := f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, first question"})
	second, answer := f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, second question"})
	// A reply to Ada's answer that neither names nor mentions her wakes her
	// all the same (handleMessage's trigger), so it is refused as a question.
	reply := f.alice.Send(room, &event.MessageEventContent{MsgType: event.MsgText, Body: "and tomorrow?",
		RelatesTo: &event.RelatesTo{InReplyTo: &event.InReplyTo{EventID: answer.ID}}})
	chatter := f.alice.Say(room, "just chatting with bob")
	seen := func(ev id.EventID) *event.Event {
		return f.alice.Wait("own message", func(e *event.Event) bool { return e.ID == ev })
	}

	ctx := context.Background()
	b := f.bot.bot
	for _, ev := range []id.EventID{first, second, reply, chatter} {
		b.messages.reportBusy(ctx, seen(ev), false)
	}
	// Sends are done when reportBusy returns; a later message from the bot
	// proves that everything before it has reached alice.
	if _, err := b.mx.sendNoticeTo(ctx, room, "marker"); err != nil {
		t.Fatal(err)
	}
	f.alice.Wait("marker", func(e *event.Event) bool {
		return e.RoomID == room && e.Sender == f.botID && e.Content.AsMessage().Body == "marker"
	})

	for _, ev := range []id.EventID{first, second, reply} {
		if len(f.alice.Find(bottest.ReactionTo(ev, reactFailed))) != 1 {
			t.Errorf("a refused question should get ❌ (%s)", ev)
		}
	}
	if got := f.alice.Find(bottest.AnyReactionTo(chatter)); len(got) > 0 {
		t.Errorf("chatter not meant for the bot got %s", bottest.Describe(got[0]))
	}
	busy := 0
	for _, n := range f.alice.Find(bottest.MessageFrom(room, f.botID, event.MsgNotice)) {
		if strings.Contains(n.Content.AsMessage().Body, "too busy") {
			busy++
		}
	}
	if busy != 1 {
		t.Errorf("want one busy notice for the flood, got %d", busy)
	}
}
