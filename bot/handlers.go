package bot

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/bot/roomqueue"
)

// registerHandlers is the bot's one table of event handlers. Handlers run
// inside the sync loop, so each only filters and enqueues work for the room;
// and each recovers its own panics, because a panic escaping a listener ends
// mautrix's sync loop for good.
func (b *Bot) registerHandlers() {
	syncer := b.mx.cli.Syncer.(mautrix.ExtensibleSyncer)
	syncer.OnSync(b.mx.cli.MoveInviteState) // invite state goes into the invite event
	syncer.OnSync(b.onSyncResponse)
	syncer.OnEventType(event.StateMember, b.guard("member", b.onMember))
	syncer.OnEventType(event.EventMessage, b.guard("message", b.onMessage))
	syncer.OnEventType(event.EventRedaction, b.guard("redaction", b.onRedaction))
	// What names a room for the memory page (web_rooms.go).
	for _, t := range []event.Type{event.StateRoomName, event.StateCanonicalAlias, event.StateMember} {
		syncer.OnEventType(t, b.guard("room name", b.forgetName))
	}
	// m.room.encrypted is handled by the crypto helper: decrypted messages
	// come back through onMessage, failures through onUndecryptable.
}

// guard recovers a panic in a sync-loop handler and logs it with its stack.
func (b *Bot) guard(name string, fn mautrix.EventHandler) mautrix.EventHandler {
	return func(ctx context.Context, evt *event.Event) {
		defer b.recoverIn(name, evt)
		b.deps.Observer.BotEvent(name)
		fn(ctx, evt)
	}
}

func (b *Bot) recoverIn(name string, evt *event.Event) {
	if p := recover(); p != nil {
		eventLogger(b.log, evt).Error("panic in sync handler", "handler", name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	}
}

// onSyncResponse marks the bot ready once the first /sync (the catch-up)
// has been received. Its events are dispatched after it returns: a resumed
// bridge's catch-up brings what was sent while it was down (offline.go).
func (b *Bot) onSyncResponse(ctx context.Context, res *mautrix.RespSync, since string) bool {
	b.joins.observe(res, b.mx.cli.UserID) // before its events are dispatched (joins.go)
	b.resumedCatchUp.Store(!b.synced && since != "")
	b.synced = true
	b.readyOnce.Do(func() {
		b.log.Info("Matrix bridge caught up", "resumed", since != "")
		close(b.ready)
	})
	return true
}

// isBacklog reports events that are context at most, never answered or
// run: those sent before this process started (downtime, below) and those
// from before Ada's latest join of their room (joins.go).
func (b *Bot) isBacklog(evt *event.Event) bool {
	return b.duringDowntime(evt) || b.joins.beforeJoin(evt)
}

// duringDowntime reports events sent before this process started: what
// arrived while the bridge was down, the initial sync's history. Anything
// sent after start-up is answered, whichever /sync brings it.
//
// It is told by time, not by the /sync that brings it: the sync token is
// saved before a response is processed, so nothing a previous process
// received comes again, and a catch-up with nothing new hands back the
// token it was given, so the first live /sync resumes from the same token
// as the catch-up did (issue 27: the first message after a quiet restart
// was dropped as backlog).
func (b *Bot) duringDowntime(evt *event.Event) bool {
	return evt.Timestamp < b.startedAt.UnixMilli()
}

// onMember handles invites to the bot, and members leaving (the bot leaves
// rooms where it is alone).
func (b *Bot) onMember(ctx context.Context, evt *event.Event) {
	content := evt.Content.AsMember()
	log := eventLogger(b.log, evt)
	ctx = withLogger(ctx, log)
	switch {
	case evt.GetStateKey() == b.mx.cli.UserID.String() && content.Membership == event.MembershipInvite:
		// An invite arrives in the invite section and may be seen again in
		// the joined room's state: only the first kind is acted on, and
		// handleInvite is idempotent anyway.
		if evt.Mautrix.EventSource&event.SourceInvite == 0 {
			return
		}
		b.queue.Enqueue(evt.RoomID, roomqueue.Job{Name: "invite", Ctx: ctx, Run: func(ctx context.Context) error { return b.members.handleInvite(ctx, evt) }})
	case evt.GetStateKey() == b.mx.cli.UserID.String() && content.Membership.IsLeaveOrBan():
		if evt.Mautrix.EventSource&event.SourceLeave == 0 && b.joins.beforeJoin(evt) {
			return // an old leave (a kick before a re-invite) in the joined room's history
		}
		room := evt.RoomID
		if evt.Mautrix.EventSource&event.SourceLeave != 0 { // left now, not an old leave in a joined room's history
			b.forget.leftRoom(ctx, room, evt.ID)
		}
		b.queue.Enqueue(room, roomqueue.Job{Name: "left", Ctx: ctx, Run: func(ctx context.Context) error {
			b.rooms.forget(room)
			// The room's own settings and quota counts go with it: a new
			// invitation starts from the bridge defaults.
			return b.bridge.DropRoomSettings(ctx, room.String())
		}})
	case evt.Mautrix.EventSource&event.SourceJoin != 0 && content.Membership.IsLeaveOrBan():
		b.queue.Enqueue(evt.RoomID, roomqueue.Job{Name: "leave-if-alone", Ctx: ctx, Run: func(ctx context.Context) error { return b.members.leaveIfAlone(ctx, evt.RoomID) }})
	}
}

// onMessage enqueues every room message for the room's worker, which
// remembers it as context and, unless it is backlog, answers or runs a
// command.
func (b *Bot) onMessage(ctx context.Context, evt *event.Event) {
	content, ok := evt.Content.Parsed.(*event.MessageEventContent)
	if !ok || evt.Mautrix.EventSource&event.SourceLeave != 0 {
		return
	}
	switch {
	case evt.Unsigned.RedactedBecause != nil:
		return
	case content.RelatesTo.GetReplaceID() != "":
		b.onEdit(ctx, evt, content)
		return
	case content.MsgType == event.MsgNotice:
		return // notices are bot output by convention (ours included); answering them loops bots
	case content.MsgType != event.MsgText && content.MsgType != event.MsgEmote && content.MsgType != event.MsgAudio && !isUpload(content):
		return // video, locations, ...: not handled
	}
	backlog := b.isBacklog(evt)
	ctx = b.withTrace(withLogger(ctx, eventLogger(b.log, evt)), evt)
	b.queue.Enqueue(evt.RoomID, roomqueue.Job{
		Name: "message", Ctx: ctx,
		Run: func(ctx context.Context) error {
			if b.forget.skipRedacted(ctx, evt.RoomID, evt.ID) {
				return nil
			}
			traceFrom(ctx).started = time.Now()
			return b.messages.handleMessage(ctx, evt, backlog)
		},
		OnPanic: func(ctx context.Context) { b.mx.react(ctx, evt.RoomID, evt.ID, reactFailed) },
		OnDrop:  func(ctx context.Context) { b.messages.reportBusy(ctx, evt, backlog) },
		OnStop:  func(ctx context.Context) { b.messages.reportStopped(ctx, evt, backlog) },
	})
	if backlog && b.resumedCatchUp.Load() && b.duringDowntime(evt) {
		// Sent while the bridge was down (offline.go).
		b.queue.Enqueue(evt.RoomID, roomqueue.Job{Name: "offline", Ctx: ctx, Run: func(ctx context.Context) error {
			return b.messages.noteOffline(ctx, evt)
		}})
	}
}

// onEdit queues an edit (m.replace) of a member's text message in the
// room's order, after the message it edits (messages_edit.go).
func (b *Bot) onEdit(ctx context.Context, evt *event.Event, content *event.MessageEventContent) {
	nc := content.NewContent
	if nc == nil || evt.Sender == b.mx.cli.UserID || (nc.MsgType != event.MsgText && nc.MsgType != event.MsgEmote) {
		return // the bot's own edits, and edits of uploads or notices
	}
	backlog := b.isBacklog(evt)
	original := content.RelatesTo.GetReplaceID()
	ctx = b.withTrace(withLogger(ctx, eventLogger(b.log, evt).With("edits", original.String())), evt)
	// An answer still being made to the old text stops now, as for a
	// redaction; the edit's job takes back what it posted.
	stopped := b.answers.inFlight.takeBackAsked(evt.RoomID, original, evt.Sender)
	if stopped != nil {
		logFrom(ctx, b.log).Info("a question being answered was edited; its old answer stops")
	}
	b.queue.Enqueue(evt.RoomID, roomqueue.Job{
		Name: "edit", Ctx: ctx,
		Run: func(ctx context.Context) error {
			if stopped != nil {
				stopped.quiet(ctx) // all of the old answer is linked, to be taken back
			}
			traceFrom(ctx).started = time.Now()
			return b.messages.handleEdit(ctx, evt, backlog)
		},
		OnPanic: func(ctx context.Context) { b.mx.react(ctx, evt.RoomID, original, reactFailed) },
	})
}

// onRedaction records m.room.redaction and has it applied before the
// room's waiting jobs (forget_pending.go); a message it overtakes is not
// handled. Redactions are handled even from the catch-up sync: a member may
// redact while the bridge is down.
func (b *Bot) onRedaction(ctx context.Context, evt *event.Event) {
	target := evt.Redacts
	if c, ok := evt.Content.Parsed.(*event.RedactionEventContent); ok && c.Redacts != "" {
		target = c.Redacts // room versions 11+ carry it in the content
	}
	if target == "" || evt.Sender == b.mx.cli.UserID {
		return
	}
	ctx = withLogger(ctx, eventLogger(b.log, evt).With("redacts", target.String()))
	if b.answers.inFlight.takeBack(evt.RoomID, target) {
		eventLogger(b.log, evt).Info("a question being answered was redacted; its answer stops")
	}
	b.forget.received(ctx, evt.RoomID, target)
}
