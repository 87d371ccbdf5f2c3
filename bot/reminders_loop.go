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

	"github.com/ada-chat/ada/bot/roomqueue"
	"github.com/ada-chat/ada/storage"
)

const (
	// reminderBatch bounds the reminders read at once; a pass pages on
	// through every due one.
	reminderBatch = 20
	// reminderRetry is how soon a reminder whose post failed is tried
	// again (the homeserver may be away, or the room refuse it for a
	// while); each further failure of it doubles the wait, up to
	// reminderRetryMax, and it never holds up the reminders after it.
	reminderRetry    = 15 * time.Second
	reminderRetryMax = 15 * time.Minute
	// reminderIdle is how long the loop sleeps with nothing pending, in
	// case a reminder came in some way it was not told of.
	reminderIdle = time.Hour
	// lateAfter: a reminder posted this long after its time says it is late.
	lateAfter = time.Minute
)

// reminderClaim is a due reminder the loop handed to its room: posting
// while its job has not run; after a failed post, when to try it again and
// the wait that gave.
type reminderClaim struct {
	posting bool
	next    time.Time
	wait    time.Duration
}

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

// postDue has every due reminder posted, except those backing off after a
// failed post or still waiting in their room's queue, and returns how long
// to wait for the next one or the next retry.
func (r *reminders) postDue(ctx context.Context, started time.Time) time.Duration {
	log := r.log
	now := r.now()
	var after storage.BridgeReminder
	seen := make(map[int64]bool)
	for {
		due, err := r.bridge.DueReminders(ctx, now, after, reminderBatch)
		if err != nil {
			if ctx.Err() == nil {
				log.Error("could not read the due reminders", "error", err)
			}
			return reminderRetry
		}
		for _, rem := range due {
			if ctx.Err() != nil {
				return 0
			}
			seen[rem.ID] = true
			if r.claim(rem.ID, now) {
				r.postInRoom(ctx, rem, started)
			}
		}
		if len(due) < reminderBatch {
			break
		}
		after = due[len(due)-1]
	}
	wait := reminderIdle
	if retry, ok := r.settle(seen); ok {
		wait = min(wait, retry.Sub(r.now()))
	}
	next, ok, err := r.bridge.NextReminderDue(ctx, now)
	switch {
	case err != nil:
		if ctx.Err() == nil {
			log.Error("could not read the next reminder's time", "error", err)
		}
		return min(wait, reminderRetry)
	case ok:
		wait = min(wait, next.Sub(r.now()))
	}
	return max(0, wait)
}

// claim marks the reminder as being posted unless it is already (its room
// has not run the post yet) or it backs off until after now.
func (r *reminders) claim(id int64, now time.Time) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.claims[id]
	if c.posting || now.Before(c.next) {
		return false
	}
	c.posting = true
	r.claims[id] = c
	return true
}

// settle forgets the failures of reminders no longer due (posted, cancelled,
// gone with their room) and returns the soonest retry of the others.
func (r *reminders) settle(due map[int64]bool) (retry time.Time, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, c := range r.claims {
		switch {
		case c.posting: // its room's job has the outcome
		case !due[id]:
			delete(r.claims, id)
		default:
			retry = soonest(retry, c.next)
		}
	}
	return retry, !retry.IsZero()
}

// postInRoom posts the reminder as one of its room's jobs (in the room's
// order), urgent, so that it does not wait behind the room's questions: a
// `forget me` or a redaction of its request that the room ran first has
// cancelled it, and one that runs after finds the post linked, to take
// back. The loop does not wait for it (a job the stopping queue never
// runs keeps its claim: the loop stops too). Without a queue (tests) it
// posts at once.
func (r *reminders) postInRoom(ctx context.Context, rem storage.BridgeReminder, started time.Time) {
	run := func(ctx context.Context) error {
		r.postClaimed(ctx, rem, started)
		return nil
	}
	if r.queue == nil {
		_ = run(ctx)
		return
	}
	if !r.queue.EnqueueUrgent(id.RoomID(rem.RoomID), roomqueue.Job{Name: "reminder", Ctx: ctx, Run: run}) {
		r.done(rem, errors.New("the room's queue is stopping")) // so is the loop
	}
}

// postClaimed posts a claimed reminder if it is still pending and records
// the outcome.
func (r *reminders) postClaimed(ctx context.Context, rem storage.BridgeReminder, started time.Time) {
	still, ok, err := r.bridge.Reminder(ctx, rem.RoomID, rem.Number)
	switch {
	case err != nil:
		err = fmt.Errorf("read the reminder: %w", err)
	case !ok || still.ID != rem.ID:
		logFrom(ctx, r.log).Info("a due reminder was cancelled before its post", "room_id", rem.RoomID, "number", rem.Number)
	default:
		err = r.post(ctx, rem, started, r.now())
	}
	r.done(rem, err)
}

// done records the outcome of a claimed reminder's post: a failure backs
// it off, each further one doubling the wait (and wakes the loop to wait
// for its retry).
func (r *reminders) done(rem storage.BridgeReminder, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		delete(r.claims, rem.ID)
		return
	}
	c := r.claims[rem.ID]
	c.posting = false
	c.wait = min(2*c.wait, reminderRetryMax)
	if c.wait == 0 {
		c.wait = reminderRetry
	}
	c.next = r.now().Add(c.wait)
	r.claims[rem.ID] = c
	r.log.Warn("could not post a reminder; trying it again later", "room_id", rem.RoomID, "number", rem.Number,
		"retry_in", c.wait.String(), "error", err)
	r.nudge()
}

func soonest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
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
