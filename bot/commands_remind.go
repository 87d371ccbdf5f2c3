package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// The reminder commands: `!ada remind [me|room] <when> <text>`, `!ada
// reminders` and `!ada reminders cancel <n>` (reminders.go does the work).

func (cs *commands) remindCommands() (remind, list *command) {
	remind = &command{name: "remind", usage: "remind [me|room] <when> <text>", takesText: true, run: cs.cmdRemind,
		help: "post a reminder here at a time (`in 10 minutes`, `at 14:30`, `tomorrow at 9`, `on Friday at 10`, `on 24 December at 18:00`, `2026-12-01 14:30`, in the room's `timezone`); `me` mentions you, `room` is for everyone"}
	list = &command{name: "reminders", usage: "reminders", help: "list the reminders waiting in this room", run: cs.cmdReminders,
		subs: map[string]*command{
			"cancel": {name: "cancel", usage: "reminders cancel <n>", help: "cancel reminder number n (its author or a moderator)", run: cs.cmdReminderCancel, takesText: true},
		}}
	return remind, list
}

// cmdRemind sets a reminder; `me` (the default) mentions the asker when it
// is posted, `room` (or `us`) does not.
func (cs *commands) cmdRemind(ctx context.Context, c *commandEvent) (string, error) {
	rest, mention := c.raw, true
	if len(c.args) > 0 {
		switch c.args[0] {
		case "me":
			rest = textAfterFields(rest, 1)
		case "room", "us", "everyone":
			rest, mention = textAfterFields(rest, 1), false
		}
	}
	if strings.TrimSpace(rest) == "" {
		return fmt.Sprintf("Usage: `%s remind [me|room] <when> <text>`, e.g. `%s remind me in 10 minutes to stretch`.", commandPrefix, commandPrefix), nil
	}
	reply, _, err := cs.reminders.set(ctx, reminderRequest{room: c.evt.RoomID, asker: c.evt.Sender, event: c.evt.ID, mention: mention, when: rest})
	return reply, err
}

func (cs *commands) cmdReminders(ctx context.Context, c *commandEvent) (string, error) {
	return cs.reminders.list(ctx, c.evt.RoomID)
}

func (cs *commands) cmdReminderCancel(ctx context.Context, c *commandEvent) (string, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.Join(c.args, ""), "#"))
	if err != nil || len(c.args) != 1 || n < 1 {
		return fmt.Sprintf("Usage: `%s reminders cancel <n>`, n being a number `%s reminders` shows.", commandPrefix, commandPrefix), nil
	}
	return cs.reminders.cancel(ctx, c.evt.RoomID, c.evt.Sender, n)
}
