package bot

import (
	"context"
	"errors"
	"fmt"
	"html"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/storage"
)

const (
	// reminderBatch bounds the reminders posted in one pass; more due ones
	// follow at once in the next.
	reminderBatch = 20
	// reminderRetry is how soon a reminder whose post failed is tried
	// again (the homeserver may be away).
	reminderRetry = 15 * time.Second
	// reminderIdle is how long the loop sleeps with nothing pending, in
	// case a reminder came in some way it was not told of.
	reminderIdle = time.Hour
	// lateAfter: a reminder posted this long after its time says it is late.
	lateAfter = time.Minute
)

// loop is the bot's one reminder timer: it posts what is due, then sleeps
// until the next reminder's time, or until set says a sooner one came. A
// reminder due while the bridge was down is posted at start, saying it is
// late. It returns when ctx ends.
func (r *reminders) loop(ctx context.Context, started time.Time) {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		case <-timer.C:
		}
		wait := r.postDue(ctx, started)
		if !timer.Stop() {
			select { // drain a fire that raced with the wake
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
	}
}

// postDue posts every due reminder and returns how long to wait for the
// next one.
func (r *reminders) postDue(ctx context.Context, started time.Time) time.Duration {
	log := r.log
	for {
		now := r.now()
		due, err := r.bridge.DueReminders(ctx, now, reminderBatch)
		if err != nil {
			if ctx.Err() == nil {
				log.Error("could not read the due reminders", "error", err)
			}
			return reminderRetry
		}
		failed := false
		for _, rem := range due {
			if ctx.Err() != nil {
				return 0
			}
			if err := r.post(ctx, rem, started, now); err != nil {
				failed = true
				log.Warn("could not post a reminder; trying again soon", "room_id", rem.RoomID, "number", rem.Number, "error", err)
			}
		}
		if failed {
			return reminderRetry
		}
		if len(due) < reminderBatch {
			break
		}
	}
	next, ok, err := r.bridge.NextReminderDue(ctx)
	switch {
	case err != nil:
		if ctx.Err() == nil {
			log.Error("could not read the next reminder's time", "error", err)
		}
		return reminderRetry
	case !ok:
		return reminderIdle
	}
	return max(0, min(next.Sub(r.now()), reminderIdle))
}

// post posts one reminder as a reply to its request, mentioning its author
// for `me`, and then deletes it: a crash in between posts it twice rather
// than never. A room the bot can no longer post in drops it.
func (r *reminders) post(ctx context.Context, rem storage.BridgeReminder, started, now time.Time) error {
	room, member := id.RoomID(rem.RoomID), id.UserID(rem.Member)
	c := r.content(ctx, rem, started, now)
	sent, err := r.mx.sendContent(ctx, room, c)
	if errors.Is(err, mautrix.MForbidden) || errors.Is(err, mautrix.MNotFound) {
		r.log.Warn("dropping a reminder of a room the bot cannot post in", "room_id", rem.RoomID, "number", rem.Number, "error", err)
		err = nil
	}
	if err != nil {
		return err
	}
	// It quotes its author's words: a redaction of the request or their
	// `!ada forget me` takes it back, as Ada's replies to them.
	if sent != "" && rem.EventID != "" {
		linkReplies(ctx, r.bridge, r.log, &event.Event{ID: id.EventID(rem.EventID), RoomID: room, Sender: member}, []id.EventID{sent}, now)
	}
	if _, err := r.bridge.DeleteReminder(ctx, rem.ID); err != nil {
		return fmt.Errorf("delete the posted reminder: %w", err)
	}
	r.log.Info("reminder posted", "room_id", rem.RoomID, "number", rem.Number, "member", member.String(),
		"late_seconds", int(now.Sub(rem.Due).Seconds()))
	return nil
}

// content is the reminder's message: an m.text (it should notify), a reply
// to the request, with a pill of the author for `me`.
func (r *reminders) content(ctx context.Context, rem storage.BridgeReminder, started, now time.Time) *event.MessageEventContent {
	room, member := id.RoomID(rem.RoomID), id.UserID(rem.Member)
	name := r.mx.displayName(ctx, room, member)
	c := &event.MessageEventContent{MsgType: event.MsgText, Format: event.FormatHTML, Mentions: &event.Mentions{}}
	if rem.Mention {
		c.Body = fmt.Sprintf("⏰ Reminder for %s: %s", name, rem.Text)
		c.FormattedBody = fmt.Sprintf(`⏰ Reminder for <a href="%s">%s</a>: %s`, member.URI().MatrixToURL(),
			html.EscapeString(name), html.EscapeString(rem.Text))
		c.Mentions.UserIDs = []id.UserID{member}
	} else {
		c.Body = fmt.Sprintf("⏰ Reminder for the room (from %s): %s", name, rem.Text)
		c.FormattedBody = html.EscapeString(c.Body)
	}
	if rem.Due.Before(started) || now.Sub(rem.Due) > lateAfter {
		late := fmt.Sprintf("(Late: this was due %s; I could not post it then.)",
			showTime(rem.Due, r.location(ctx, room), now))
		c.Body += "\n\n" + late
		c.FormattedBody += "<br><br><em>" + html.EscapeString(late) + "</em>"
	}
	if rem.EventID != "" {
		c.RelatesTo = (&event.RelatesTo{}).SetReplyTo(id.EventID(rem.EventID))
	}
	return c
}

// runReminders runs the reminder timer once the first sync is in (rooms
// left while the bridge was down are known by then, and their reminders
// gone), until ctx ends.
func (b *Bot) runReminders(ctx context.Context) {
	select {
	case <-b.ready:
	case <-ctx.Done():
		return
	}
	b.reminders.loop(ctx, b.startedAt)
}
