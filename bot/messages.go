package bot

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// messageHandler handles a room message in the room's queue: it keeps it
// as context and hands a question to the answerer, a command to commands.
// It also speaks for the messages a full queue refused (reportBusy).
type messageHandler struct {
	mx      *matrix
	window  *window
	media   *media
	answers *answerer
	cmds    *commands
	forget  *forgetting
	bridge  *storage.Bridge
	policy  *invitePolicy
	act     *activation
	// stt transcribes voice messages; nil = voice not enabled (voice.go).
	stt Transcriber
	// respondToDMs is RESPOND_TO_DMS.
	respondToDMs bool
	busy         busyNotices
	offline      offlineNotices
	observe      Observer
	now          func() time.Time
	log          *slog.Logger
}

// handleMessage runs in the room's queue: it remembers an allowed user's
// message as context, then, for a live one, runs a command, handles an
// upload (media.go), or answers when the message activates the bot.
func (h *messageHandler) handleMessage(ctx context.Context, evt *event.Event, backlog bool) error {
	content, ok := evt.Content.Parsed.(*event.MessageEventContent)
	if !ok {
		return nil
	}
	// A message of a member forgotten since it was sent (it reached Ada
	// late: a forgetting through the API while it waited in the queue, a
	// backlog after a join) is forgotten too.
	if evt.Sender != h.mx.cli.UserID && forgottenEvent(ctx, h.bridge, h.log, evt.RoomID, evt) {
		logFrom(ctx, h.log).Debug("ignoring a message of a member forgotten since")
		return nil
	}
	removeReplyFallback(content)
	dropForgottenQuote(ctx, h.mx, h.bridge, h.log, evt, content)
	if content.MsgType == event.MsgAudio {
		return h.handleVoice(ctx, evt, content, backlog)
	}
	upload := isUpload(content)
	text := strings.TrimSpace(content.Body)
	if upload {
		text = uploadContextText(content)
	}
	if text == "" {
		return nil
	}
	args, isCommand := parseCommand(text)
	isCommand = isCommand && !upload
	s, err := h.bridge.Room(ctx, evt.RoomID.String(), core.NewConversationID(), h.now())
	if err != nil {
		return err
	}
	// The bot's answers are recorded when sent; a user outside ALLOWED_USERS
	// is not heard at all: their words are neither context nor stored.
	if !isCommand && evt.Sender != h.mx.cli.UserID && h.policy.userAllowed(evt.Sender) {
		h.window.remember(ctx, s, storage.BridgeMessage{EventID: evt.ID.String(), Sender: evt.Sender.String(), Text: text, Time: sentAt(evt, h.now())})
	}
	log := logFrom(ctx, h.log)
	switch {
	case backlog || evt.Sender == h.mx.cli.UserID:
		return nil
	case !h.policy.userAllowed(evt.Sender):
		log.Debug("ignoring a message from a user not in ALLOWED_USERS")
		return nil
	case isCommand:
		h.observe.BotEvent("command")
		return h.cmds.runCommand(ctx, evt, s, args)
	case upload:
		h.observe.BotEvent("image")
		if q, ok := h.media.uploadQuestion(ctx, evt, content); ok {
			return h.answers.answer(ctx, evt, q, s)
		}
		return nil
	}
	trig := h.trigger(ctx, evt, content, h.mx.isDM(ctx, evt.RoomID))
	if trig == triggerNone {
		// Why a message got no answer is the first question when debugging
		// a room; the text itself is never logged.
		log.Debug("not answering: no mention, reply to the bot, display name, DM or keyword")
		return nil
	}
	q := h.media.questionFor(ctx, evt, content, trig)
	log.Info("answering", "trigger", string(trig), "with_image", q.image != nil)
	return h.answers.answer(ctx, evt, q, s)
}

// sentAt is when a message was written, as Ada stores it: the homeserver's
// stamp (origin_server_ts), but never later than now. The sender's client
// can set the stamp (the `ts` of application services; any user on
// Dendrite): a message stamped years ahead would otherwise be stored as
// written then, and outlive DATA_RETENTION_DAYS by as long.
func sentAt(evt *event.Event, now time.Time) time.Time {
	if at := time.UnixMilli(evt.Timestamp); at.Before(now) {
		return at
	}
	return now
}

// busyNoticeEvery bounds the "busy" notices: a flood that overflows a room's
// queue gets ❌ on each question it refused but one notice a minute, so that
// the bot's apology does not become a flood of its own.
const busyNoticeEvery = time.Minute

// busyNotices remembers when each room last got a "busy" notice; its zero
// value is ready. Safe from any goroutine.
type busyNotices struct {
	mu   sync.Mutex
	last map[noticeKey]time.Time
}

// noticeKey is whom a notice is for: a room, or one member in it.
type noticeKey struct {
	room   id.RoomID
	member id.UserID
}

// due reports whether room may get a notice now, and if so records it.
func (n *busyNotices) due(room id.RoomID, now time.Time) bool { return n.dueFor(room, "", now) }

// dueFor is due for one member of the room: each member who waits is told
// (issue 40 item 12), each at most once a busyNoticeEvery.
func (n *busyNotices) dueFor(room id.RoomID, member id.UserID, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := noticeKey{room, member}
	if last, ok := n.last[k]; ok && now.Sub(last) < busyNoticeEvery {
		return false
	}
	if n.last == nil {
		n.last = make(map[noticeKey]time.Time)
	}
	n.last[k] = now
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

// reportStopped is the onStop of a room message: the bridge stopped before
// handling it, and the next start will take it for backlog. If it was meant
// for the bot, the sender sees ❌ and a notice to ask again.
func (h *messageHandler) reportStopped(ctx context.Context, evt *event.Event, backlog bool) {
	if h.wouldAnswer(ctx, evt, backlog) {
		h.mx.failStopped(ctx, evt)
	}
}

// trigger is what wakes the bot for a text message, if anything: the
// activation rules, or a reply to one of its messages. isDM says whether
// the room is a direct chat.
func (h *messageHandler) trigger(ctx context.Context, evt *event.Event, content *event.MessageEventContent, isDM bool) trigger {
	trig := h.act.check(content, h.respondToDMs && isDM)
	if trig == triggerNone && h.repliesToBot(ctx, evt, content) {
		trig = triggerReply
	}
	return trig
}

// wouldAnswer is handleMessage's choice without its side effects: a live
// message from an allowed user that is a command (an upload never is) or
// wakes the bot (trigger, as handleMessage asks it).
func (h *messageHandler) wouldAnswer(ctx context.Context, evt *event.Event, backlog bool) bool {
	content, ok := evt.Content.Parsed.(*event.MessageEventContent)
	if !ok || backlog || evt.Sender == h.mx.cli.UserID || !h.policy.userAllowed(evt.Sender) {
		return false
	}
	if _, isCommand := parseCommand(strings.TrimSpace(content.Body)); isCommand && !isUpload(content) {
		return true
	}
	return h.trigger(ctx, evt, content, h.twoMembers(ctx, evt.RoomID)) != triggerNone
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
