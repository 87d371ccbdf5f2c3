package bot

import (
	"context"
	"strings"
	"sync"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// busyNoticeEvery bounds the "busy" notices: a flood that overflows a room's
// queue gets ❌ on each question it refused but one notice a minute, so that
// the bot's apology does not become a flood of its own.
const busyNoticeEvery = time.Minute

// busyNotices remembers when each room last got a "busy" notice; its zero
// value is ready. Safe from any goroutine.
type busyNotices struct {
	mu   sync.Mutex
	last map[id.RoomID]time.Time
}

// due reports whether room may get a notice now, and if so records it.
func (n *busyNotices) due(room id.RoomID, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if last, ok := n.last[room]; ok && now.Sub(last) < busyNoticeEvery {
		return false
	}
	if n.last == nil {
		n.last = make(map[id.RoomID]time.Time)
	}
	n.last[room] = now
	return true
}

// reportBusy is the onDrop of a room message: the room's queue was full,
// so the message will never be handled. If it was meant for the bot, the
// sender sees ❌ and a plain notice instead of silence. It runs beside the
// room's jobs, so it reads only goroutine-safe state (the state store, not
// the room's runtime).
func (h *messageHandler) reportBusy(ctx context.Context, evt *event.Event, backlog bool) {
	if !h.wouldAnswer(ctx, evt, backlog) {
		return
	}
	h.mx.react(ctx, evt.RoomID, evt.ID, reactFailed)
	if !h.busy.due(evt.RoomID, h.now()) {
		return
	}
	if _, err := h.mx.sendNotice(ctx, evt, "⚠️ Sorry, I am too busy in this room right now and could not take your message. "+
		"Please send it again in a minute."); err != nil {
		logFrom(ctx, h.log).Error("could not post the busy notice", "error", err)
	}
}

// wouldAnswer is handle's choice without its side effects: a live
// message from an allowed user that is a command or activates the bot.
func (h *messageHandler) wouldAnswer(ctx context.Context, evt *event.Event, backlog bool) bool {
	content, ok := evt.Content.Parsed.(*event.MessageEventContent)
	if !ok || backlog || evt.Sender == h.mx.cli.UserID || !h.policy.userAllowed(evt.Sender) {
		return false
	}
	if _, isCommand := parseCommand(strings.TrimSpace(content.Body)); isCommand {
		return true
	}
	return h.act.check(content, h.respondToDMs && h.twoMembers(ctx, evt.RoomID)) != triggerNone
}

// twoMembers is isDM from the state store alone, without fetching the
// room's members (which only the room's own jobs may do).
func (h *messageHandler) twoMembers(ctx context.Context, room id.RoomID) bool {
	all, err := h.mx.cli.StateStore.GetAllMembers(ctx, room)
	if err != nil {
		return false
	}
	joined := 0
	for _, m := range all {
		if m != nil && m.Membership == event.MembershipJoin {
			joined++
		}
	}
	return joined == 2
}
