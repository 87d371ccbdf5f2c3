package bot

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/roomqueue"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/when"
	"github.com/ada-chat/ada/storage"
)

// ReminderOptions are TIMEZONE and the limits of pending reminders
// (MEMBER_PENDING_REMINDERS, ROOM_PENDING_REMINDERS; 0 = reminders off).
type ReminderOptions struct {
	TimeZone      string // IANA name; "" = UTC
	MemberPending int
	RoomPending   int
}

func (o ReminderOptions) on() bool { return o.MemberPending > 0 && o.RoomPending > 0 }

const (
	// defaultReminderHour is the time of a reminder for a day without one
	// ("tomorrow", "on Friday").
	defaultReminderHour = 9
	// maxReminderAhead bounds how far ahead a reminder may be.
	maxReminderAhead = 366 * 24 * time.Hour
	// maxReminderRunes bounds a reminder's text.
	maxReminderRunes = 1000
)

// reminders sets, lists, cancels and posts the rooms' reminders; the bot's
// one timer goroutine (loop, reminders_loop.go) posts them when due. The
// command and the specialist set them the same way (set).
type reminders struct {
	bridge *storage.Bridge
	mx     roomPoster
	opts   ReminderOptions
	// settings gives the room's time zone.
	settings *roomSettings
	// storeInRAG is STORE_IN_RAG: off, every room is in privacy mode.
	storeInRAG bool
	resolve    *when.Resolver
	// wake tells the loop that a reminder was set (its next due time may
	// be sooner); buffered, so a set never waits for the loop.
	wake chan struct{}
	// queue runs each post as a job of its room (Run gives it the room
	// queue; nil in tests: the loop posts itself).
	queue *roomqueue.Queue
	// mu guards claims, which the loop and the rooms' post jobs share.
	mu sync.Mutex
	// claims holds, by id, the due reminders queued in their room and
	// those whose post failed, until they are posted or gone.
	claims map[int64]reminderClaim
	now    func() time.Time
	log    *slog.Logger
}

// roomPoster is what reminders need of the Matrix client (*matrix).
type roomPoster interface {
	sendContent(ctx context.Context, room id.RoomID, content *event.MessageEventContent) (id.EventID, error)
	displayName(ctx context.Context, room id.RoomID, user id.UserID) string
	powerLevel(ctx context.Context, room id.RoomID, user id.UserID) (int, error)
}

func newReminders(opts Options, bridge *storage.Bridge, settings *roomSettings, mx roomPoster, now func() time.Time, log *slog.Logger) *reminders {
	return &reminders{bridge: bridge, mx: mx, opts: opts.Reminders, settings: settings, storeInRAG: opts.StoreInRAG,
		resolve: when.New(when.English), wake: make(chan struct{}, 1), claims: make(map[int64]reminderClaim), now: now, log: log}
}

// nudge tells the loop to look again (a reminder set, a post failed).
func (r *reminders) nudge() {
	select {
	case r.wake <- struct{}{}:
	default: // the loop is already told
	}
}

// reminderRequest is one reminder asked for, by command or in plain words.
type reminderRequest struct {
	room    id.RoomID
	asker   id.UserID
	event   id.EventID // the request, which the post replies to
	mention bool       // `me`: the post mentions the asker
	// when and text: for a command, when holds "<when> <text>" and text
	// is empty; the specialist gives them apart.
	when, text string
}

// set stores a reminder and returns the confirmation (Markdown), or a
// refusal in plain words (ok false). err is for failures of the store.
func (r *reminders) set(ctx context.Context, rq reminderRequest) (reply string, ok bool, err error) {
	if !r.opts.on() {
		return "Reminders are off on this bridge (the operator's MEMBER_PENDING_REMINDERS or ROOM_PENDING_REMINDERS is 0).", false, nil
	}
	room, err := r.bridge.Room(ctx, rq.room.String(), core.NewConversationID(), r.now())
	if err != nil {
		return "", false, err
	}
	if !r.storeInRAG || !room.StorageEnabled {
		return "This room is in privacy mode: I store nothing from it, so I cannot keep a reminder either. " +
			"A moderator can turn storage on with `" + commandPrefix + " storage on`.", false, nil
	}
	loc := r.location(ctx, rq.room)
	now := r.now().In(loc)
	due, text, refusal := r.parse(rq, now)
	if refusal != "" {
		return refusal, false, nil
	}
	stored, err := r.bridge.AddReminder(ctx, storage.BridgeReminder{RoomID: rq.room.String(), Member: rq.asker.String(),
		Mention: rq.mention, Text: text, Due: due, EventID: rq.event.String(), Created: now}, r.opts.MemberPending, r.opts.RoomPending)
	if limit, isLimit := storage.IsReminderLimit(err); isLimit {
		return limitRefusal(limit), false, nil
	}
	if err != nil {
		return "", false, err
	}
	r.nudge()
	logFrom(ctx, r.log).Info("reminder set", "number", stored.Number, "due", due.UTC().Format(time.RFC3339), "by", rq.asker.String())
	whom := "you"
	if !rq.mention {
		whom = "this room"
	}
	return fmt.Sprintf("⏰ Reminder #%d set for %s: I will remind %s of “%s”. (`%s reminders` lists them; `%s reminders cancel %d` cancels it.)",
		stored.Number, showTime(due, loc, now), whom, text, commandPrefix, commandPrefix, stored.Number), true, nil
}

// parse reads the time and the text of a reminder; refusal says what is
// wrong with them.
func (r *reminders) parse(rq reminderRequest, now time.Time) (due time.Time, text, refusal string) {
	usage := "Usage: `" + commandPrefix + " remind [me|room] <when> <text>`, when being e.g. `in 10 minutes`, `at 14:30`, " +
		"`tomorrow at 9`, `on Friday at 10` or `2026-12-01 14:30`."
	span, rest, ok := r.resolve.Prefix(rq.when, now)
	if rq.text != "" { // the specialist: when is the whole phrase
		ok = ok && strings.TrimSpace(rest) == ""
		rest = rq.text
	}
	if !ok {
		return time.Time{}, "", fmt.Sprintf("I could not read a time at the start of “%s”. %s", oneLineText(rq.when), usage)
	}
	due = span.Start
	if !span.Clock {
		y, m, d := span.Start.Date()
		due = time.Date(y, m, d, defaultReminderHour, 0, 0, 0, now.Location())
	}
	text = strings.TrimSpace(rest)
	for _, lead := range []string{"to ", "that ", "about "} { // "remind us on Friday to send the report"
		if len(text) > len(lead) && strings.EqualFold(text[:len(lead)], lead) {
			text = strings.TrimSpace(text[len(lead):])
			break
		}
	}
	switch {
	case text == "":
		return time.Time{}, "", "What should I remind of? Give the text after the time. " + usage
	case utf8.RuneCountInString(text) > maxReminderRunes:
		return time.Time{}, "", fmt.Sprintf("A reminder's text may be at most %d characters.", maxReminderRunes)
	case !due.After(now):
		return time.Time{}, "", fmt.Sprintf("%s has passed already; give a time to come.", showTime(due, now.Location(), now))
	case due.Sub(now) > maxReminderAhead:
		return time.Time{}, "", "I keep reminders for at most a year ahead."
	}
	return due, oneLineText(text), ""
}

func limitRefusal(e *storage.ReminderLimitError) string {
	if e.Member {
		return fmt.Sprintf("You have %d reminders waiting in this room, as many as this bridge allows; "+
			"cancel one (`%s reminders`) or wait until one is posted. Nothing was set.", e.Limit, commandPrefix)
	}
	return fmt.Sprintf("This room has %d reminders waiting, as many as this bridge allows; "+
		"cancel one (`%s reminders`) or wait until one is posted. Nothing was set.", e.Limit, commandPrefix)
}

// location is the room's time zone: its `timezone` setting, else TIMEZONE,
// else UTC.
func (r *reminders) location(ctx context.Context, room id.RoomID) *time.Location {
	return r.settings.forAnswer(ctx, room).location
}

// showTime writes t in loc for people: the date (or "today"/"tomorrow"
// next to now), the time, seconds when it has any, and the zone.
func showTime(t time.Time, loc *time.Location, now time.Time) string {
	t, now = t.In(loc), now.In(loc)
	clock := "15:04"
	if t.Second() != 0 {
		clock = "15:04:05"
	}
	day := t.Format("Monday 2 January 2006")
	ty, tm, td := t.Date()
	switch ny, nm, nd := now.Date(); {
	case ty == ny && tm == nm && td == nd:
		day = "today"
	case time.Date(ny, nm, nd+1, 0, 0, 0, 0, loc).Equal(time.Date(ty, tm, td, 0, 0, 0, 0, loc)):
		day = "tomorrow, " + t.Format("Monday 2 January")
	}
	return fmt.Sprintf("%s at %s (%s)", day, t.Format(clock), loc.String())
}

// oneLineText puts a text on one line, for quoting it.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// list is `!ada reminders`: the room's pending reminders, soonest first.
func (r *reminders) list(ctx context.Context, room id.RoomID) (string, error) {
	rs, err := r.bridge.RoomReminders(ctx, room.String())
	if err != nil {
		return "", err
	}
	if len(rs) == 0 {
		return "No reminders are waiting in this room. Set one with `" + commandPrefix + " remind [me|room] <when> <text>`.", nil
	}
	loc, now := r.location(ctx, room), r.now()
	lines := make([]string, 0, len(rs))
	for _, rem := range rs {
		who := r.mx.displayName(ctx, room, id.UserID(rem.Member))
		whom := "for " + who
		if !rem.Mention {
			whom = "for the room, set by " + who
		}
		lines = append(lines, fmt.Sprintf("- **#%d** %s, %s: %s", rem.Number, showTime(rem.Due, loc, now), whom, rem.Text))
	}
	return fmt.Sprintf("**Reminders waiting in this room**\n\n%s\n\n`%s reminders cancel <n>` cancels one (its author or a moderator).",
		strings.Join(lines, "\n"), commandPrefix), nil
}

// cancel is `!ada reminders cancel <n>`, for the reminder's author or a
// moderator.
func (r *reminders) cancel(ctx context.Context, room id.RoomID, by id.UserID, number int) (string, error) {
	rem, ok, err := r.bridge.Reminder(ctx, room.String(), number)
	if err != nil {
		return "", err
	}
	if !ok {
		return fmt.Sprintf("There is no reminder #%d waiting in this room (`%s reminders` lists them).", number, commandPrefix), nil
	}
	if rem.Member != by.String() {
		level, err := r.mx.powerLevel(ctx, room, by)
		if err != nil {
			return "", err
		}
		if level < moderatorLevel {
			return fmt.Sprintf("Only its author or a room moderator (power level %d or more) can cancel reminder #%d; your level is %d. Nothing changed.",
				moderatorLevel, number, level), nil
		}
	}
	if _, err := r.bridge.DeleteReminder(ctx, rem.ID); err != nil {
		return "", err
	}
	logFrom(ctx, r.log).Info("reminder cancelled", "number", number, "by", by.String())
	return fmt.Sprintf("🗑️ Cancelled reminder #%d (“%s”).", number, rem.Text), nil
}

// forgetMember deletes the member's pending reminders in the room (`!ada
// forget me`).
func (r *reminders) forgetMember(ctx context.Context, room id.RoomID, member id.UserID) (int, error) {
	n, err := r.bridge.DeleteMemberReminders(ctx, room.String(), member.String())
	if err != nil {
		return 0, fmt.Errorf("delete the member's reminders: %w", err)
	}
	return n, nil
}
