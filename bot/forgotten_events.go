package bot

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/storage"
)

// A member's forgetting (`!ada forget me`, `!ada forget @user`, or through
// another door) deletes what Ada stored of them, but the homeserver still
// serves their earlier events: a later reply to one of them must not bring
// its words back, neither through the reply chain Ada fetches nor through a
// quote of it in the reply's body. The bridge records when each member was
// forgotten (storage.Bridge.RecordForgotten: the command's time, or core's
// when forgotten through another door); an event of theirs sent before
// then is forgotten, and what they say from then on is heard.

// forgottenEvent reports whether evt's sender was forgotten, in its room
// or everywhere, after sending it. When the record cannot be read, the
// event counts as forgotten: it is left out rather than risked.
func forgottenEvent(ctx context.Context, bridge *storage.Bridge, log *slog.Logger, room id.RoomID, evt *event.Event) bool {
	at, ok, err := bridge.ForgottenAt(ctx, evt.Sender.String(), room.String())
	if err != nil {
		logFrom(ctx, log).Warn("could not read whether a member was forgotten; their message is left out", "error", err)
		return true
	}
	return ok && time.UnixMilli(evt.Timestamp).Before(at)
}

// stripQuote removes the quoted lines ("> …") a text starts with: in a
// reply to a forgotten message they quote it, whatever their form (the
// standard reply fallback is removed before, by removeReplyFallback).
func stripQuote(text string) string {
	lines := strings.Split(text, "\n")
	i := 0
	for i < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i]), ">") {
		i++
	}
	return strings.TrimSpace(strings.Join(lines[i:], "\n"))
}

// startsWithQuote reports whether a text starts with a quoted line.
func startsWithQuote(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), ">")
}

// dropForgottenQuote removes the quote a reply's body starts with when the
// message it replies to is forgotten (or cannot be fetched to tell). It
// fetches that message only for a reply that starts with a quote; the
// sender and time are in the clear in encrypted rooms too.
func dropForgottenQuote(ctx context.Context, mx *matrix, bridge *storage.Bridge, log *slog.Logger, evt *event.Event, c *event.MessageEventContent) {
	target := c.RelatesTo.GetReplyTo()
	if target == "" || !startsWithQuote(c.Body) {
		return
	}
	replied, err := mx.cli.GetEvent(ctx, evt.RoomID, target)
	if err != nil {
		logFrom(ctx, log).Warn("could not fetch the message replied to; the reply's quote is left out", "reply_to", target.String(), "error", err)
		c.Body = stripQuote(c.Body)
		return
	}
	if forgottenEvent(ctx, bridge, log, evt.RoomID, replied) {
		c.Body = stripQuote(c.Body)
	}
}
