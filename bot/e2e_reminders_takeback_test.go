package bot

import (
	"context"
	"testing"
	"time"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestReminderConfirmationGoesWithItsQuestion: the confirmation the
// reminder specialist posts quotes the reminder's words as a reply to the
// question; taking the question back (its redaction) takes the
// confirmation back with the answer and the reminder, in a room of three.
// A posted reminder goes with its author's `!ada forget me`.
func TestReminderConfirmationGoesWithItsQuestion(t *testing.T) {
	f, _ := startRooms(t, func(s *botSetup) {
		s.Reminders = ReminderOptions{MemberPending: 2, RoomPending: 3}
	})
	room := f.groupRoom(t, "reminder take-back")
	ctx := context.Background()

	f.llm.Script(llmtest.Reply{Tokens: []string{`SPECIALIST_REQUEST[remind:{"when": "tomorrow at 10", "text": "see the oncologist", "who": "me"}]`}},
		llmtest.Reply{Tokens: []string{"Done."}})
	q, answer := f.ask(t, f.bob, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, remind me tomorrow at 10 to see the oncologist"})
	confirm := f.bob.Wait("the specialist's confirmation", noticeReplyTo(f.botID, q, "Reminder #1 set for"))
	if _, err := f.bob.Client.RedactEvent(ctx, room, q); err != nil {
		t.Fatal(err)
	}
	f.alice.Wait("the answer taken back", bottest.RedactionOf(answer.ID))
	f.alice.Wait("the confirmation quoting the reminder taken back", bottest.RedactionOf(confirm.ID))
	if _, ok, err := f.bot.db.Bridge().Reminder(ctx, room.String(), 1); err != nil || ok {
		t.Errorf("the redacted question's reminder is still pending: %v, %v", ok, err)
	}

	// A posted reminder quotes its author too: their `!ada forget me`
	// takes it back with Ada's other replies to them.
	asked := f.bob.Say(room, "!ada remind me in 2 seconds to call the clinic")
	f.bob.Wait("confirmation", noticeReplyTo(f.botID, asked, "Reminder #2"))
	posted := waitLong(t, f.alice, "the 2-second reminder", reminderPosted(room, f.botID, "call the clinic"), 2*time.Second+bottest.Timeout)
	f.command(t, f.bob, room, "!ada forget me")
	f.alice.Wait("the posted reminder taken back by forget me", bottest.RedactionOf(posted.ID))
}
