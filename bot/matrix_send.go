package bot

import (
	"context"
	"errors"
	"fmt"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/format"
	"maunium.net/go/mautrix/id"
)

// sendContent sends one m.room.message. It learns the room's encryption state
// first and, in an encrypted room, sends only the Megolm-encrypted event: if
// encryption fails, nothing is sent, never plaintext.
func (mx *matrix) sendContent(ctx context.Context, room id.RoomID, content *event.MessageEventContent) (id.EventID, error) {
	if err := mx.prepareRoom(ctx, room); err != nil {
		return "", fmt.Errorf("not sending: %w", err)
	}
	encrypted, err := mx.cli.StateStore.IsEncrypted(ctx, room)
	if err != nil {
		return "", fmt.Errorf("not sending: cannot tell whether the room is encrypted: %w", err)
	}
	var resp *mautrix.RespSendEvent
	if encrypted {
		if mx.crypto == nil {
			return "", errors.New("not sending: the room is encrypted and encryption is not set up")
		}
		if err := mx.gate.lock(ctx); err != nil {
			return "", fmt.Errorf("not sending: %w", err)
		}
		enc, err := mx.crypto.Encrypt(ctx, room, event.EventMessage, content)
		mx.gate.unlock()
		if err != nil {
			return "", fmt.Errorf("not sending: encryption failed: %w", err)
		}
		resp, err = mx.cli.SendMessageEvent(ctx, room, event.EventEncrypted, enc)
		if err != nil {
			return "", err
		}
	} else {
		resp, err = mx.cli.SendMessageEvent(ctx, room, event.EventMessage, content, mautrix.ReqSendEvent{DontEncrypt: true})
		if err != nil {
			return "", err
		}
	}
	return resp.EventID, nil
}

// notice renders Markdown written by the bot itself as an m.notice.
func notice(markdown string) *event.MessageEventContent {
	c := format.RenderMarkdown(markdown, true, false)
	c.MsgType = event.MsgNotice
	c.Mentions = &event.Mentions{}
	return &c
}

// sendNoticeTo posts a notice into a room, not as a reply (the intro).
func (mx *matrix) sendNoticeTo(ctx context.Context, room id.RoomID, markdown string) (id.EventID, error) {
	return mx.sendContent(ctx, room, notice(markdown))
}

// sendNotice posts a notice as a reply to evt (in its thread, if any),
// mentioning only evt's sender.
func (mx *matrix) sendNotice(ctx context.Context, evt *event.Event, markdown string) (id.EventID, error) {
	c := notice(markdown)
	relateTo(c, evt, true)
	c.Mentions = &event.Mentions{UserIDs: []id.UserID{evt.Sender}}
	return mx.sendContent(ctx, evt.RoomID, c)
}

// fail marks the message ❌ and says in plain words what went wrong. When
// the bot itself is stopping there is nobody to tell.
func (mx *matrix) fail(ctx context.Context, evt *event.Event, reason string) {
	if mx.runCtx.Err() != nil {
		return
	}
	mx.react(ctx, evt.RoomID, evt.ID, reactFailed)
	if _, err := mx.sendNotice(ctx, evt, "⚠️ Sorry, I could not answer: "+reason); err != nil {
		logFrom(ctx, mx.log).Error("could not post the failure notice", "error", err)
	}
}

// relateTo makes c a reply to evt, inside evt's thread when it was in one.
// Only the first part of a split reply is a reply; the rest follow in the
// thread (or room).
func relateTo(c *event.MessageEventContent, evt *event.Event, first bool) {
	var thread id.EventID
	if parent, ok := evt.Content.Parsed.(*event.MessageEventContent); ok {
		thread = parent.RelatesTo.GetThreadParent()
	}
	switch {
	case thread != "":
		c.RelatesTo = (&event.RelatesTo{}).SetThread(thread, evt.ID)
		if first {
			c.RelatesTo.SetReplyTo(evt.ID) // a real reply, not just the thread fallback
		}
	case first:
		c.RelatesTo = (&event.RelatesTo{}).SetReplyTo(evt.ID)
	}
}

// Reactions show a message's state (SPEC.md: received → processing → done or
// failed), plus a sign on messages that could not be decrypted.
const (
	reactThinking      = "🧠"
	reactDone          = "✅"
	reactFailed        = "❌"
	reactUndecryptable = "🔒"
)

// react annotates an event. Reactions are best effort: a failure is logged
// and never stops the answer. mautrix sends m.reaction unencrypted even in
// encrypted rooms, as clients do, so the server can aggregate them.
func (mx *matrix) react(ctx context.Context, room id.RoomID, target id.EventID, key string) {
	if _, err := mx.cli.SendReaction(ctx, room, target, key); err != nil && ctx.Err() == nil {
		logFrom(ctx, mx.log).Warn("could not add a reaction", "reaction", key, "error", err)
	}
}
