package bot

import (
	"context"
	"encoding/json"
	"fmt"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
)

// ReminderSpecialistName is the name the model calls reminders by, and
// ReminderTag the registry's group of it (core.Registry.SetTagged).
const (
	ReminderSpecialistName = "remind"
	ReminderTag            = "reminders"
)

// ReminderSpecialist is the built-in specialist through which the model
// sets a reminder asked for in plain words ("remind us on Friday at 10 to
// send the report"), exactly as `!ada remind` does: the room gets the same
// confirmation, as a reply to the question, and the model the same text.
// It is tagged core.TagRoom, so only chats from a room are offered it; cmd
// registers it when the bridge runs with the core in the same process.
func (b *Bot) ReminderSpecialist() core.Specialist { return reminderSpecialist{r: b.reminders} }

type reminderSpecialist struct{ r *reminders }

const reminderInputSchema = `{"type":"object","properties":{` +
	`"when":{"type":"string","description":"when to post it, as the member said it or as an ISO date and time: 'in 10 minutes', 'at 14:30', 'tomorrow at 9', 'on Friday at 10', '2026-12-01T14:30'"},` +
	`"text":{"type":"string","description":"what to remind of, e.g. 'send the report'"},` +
	`"who":{"type":"string","enum":["me","room"],"description":"'me' mentions the member who asked; 'room' is for everyone (they said 'us' or 'everyone')"}},` +
	`"required":["when","text"],"additionalProperties":false}`

func (reminderSpecialist) Info() core.SpecialistInfo {
	return core.SpecialistInfo{
		Name: ReminderSpecialistName,
		Description: "Sets a reminder that you post in this chat room at a time, when a member asks to be reminded (or the room). " +
			"Times are read in the room's time zone. The result says whether it was set; the room already sees the confirmation.",
		Icon: "⏰", Version: "1.0.0", Priority: core.PriorityMedium, Enabled: true,
		Tags:         []string{core.TagRoom, ReminderTag},
		InputSchema:  json.RawMessage(reminderInputSchema),
		OutputSchema: json.RawMessage(`{"type":"string"}`),
	}
}

// Run sets the reminder. A refusal (privacy mode, a limit, a time past) is
// the model's to explain, not a failure.
func (s reminderSpecialist) Run(ctx context.Context, call core.SpecialistCall) (string, error) {
	var in struct{ When, Text, Who string }
	if err := json.Unmarshal(call.Args, &in); err != nil {
		return "", core.Wrap(core.KindInvalid, err, "the arguments are not valid")
	}
	if call.RoomID == "" || call.Speaker == nil {
		return "", core.Errorf(core.KindInvalid, "reminders can be set only from a Matrix room")
	}
	rq := reminderRequest{room: id.RoomID(call.RoomID), asker: id.UserID(call.Speaker.UserID), event: id.EventID(call.EventID),
		mention: in.Who != "room", when: in.When, text: in.Text}
	reply, ok, err := s.r.set(ctx, rq)
	if err != nil {
		return "", err
	}
	if !ok {
		return "Not set: " + reply, nil
	}
	c := notice(reply)
	if rq.event != "" {
		c.RelatesTo = (&event.RelatesTo{}).SetReplyTo(rq.event)
	}
	c.Mentions = &event.Mentions{UserIDs: []id.UserID{rq.asker}}
	sent, err := s.r.mx.sendContent(ctx, rq.room, c)
	if err != nil {
		logFrom(ctx, s.r.log).Warn("could not post a reminder's confirmation", "error", err)
		return fmt.Sprintf("Set, but the confirmation could not be posted; tell the member: %s", reply), nil
	}
	// It quotes the reminder: taking the question back (its redaction,
	// the asker's `!ada forget me`) takes it back with the answer.
	if rq.event != "" {
		linkReplies(ctx, s.r.bridge, s.r.log, &event.Event{ID: rq.event, RoomID: rq.room, Sender: rq.asker}, []id.EventID{sent}, s.r.now())
	}
	return fmt.Sprintf("Set; the room was shown this confirmation: %s Tell the member briefly, without repeating all of it.", reply), nil
}
