package bot

import (
	"context"
	"log/slog"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// Why what a message caused was deleted, for the history of a memory.
const (
	redactionReason = "the message it was learned from was redacted in the room"
	editReason      = "the message it was learned from was edited in the room"
)

// handleRedaction deletes the redacted message's stored text and what was
// stored only because of it (DECISIONS.md): the turns of a question and
// its answer, with the automatic memories learned only from them and the
// summaries covering them (the core rewrites those), and a memory stored
// with `!ada remember`, and a reminder it asked for. Ada's own replies to
// the message are redacted too: they may quote it (issue 27).
func (f *forgetting) handleRedaction(ctx context.Context, room id.RoomID, target id.EventID) (err error) {
	linked, err := f.forgetEvent(ctx, room, target, redactionReason)
	if linked > 0 { // a cascade: the message had caused something
		f.observe.BotRedactionCascade(err)
	}
	if err == nil {
		logFrom(ctx, f.log).Info("redaction handled", "linked", linked)
	}
	return err
}

// forgetEvent takes away a room message and everything it caused, for a
// redaction or an edit (messages_edit.go): its text in the room's context,
// the documents linked to it, and Ada's replies to it, which are redacted
// and leave the context too. It returns how many things were linked to it
// (some may have been gone already).
func (f *forgetting) forgetEvent(ctx context.Context, room id.RoomID, target id.EventID, reason string) (int, error) {
	f.window.dropFromContext(room, target)
	dropWhy(ctx, f.bridge, f.rooms, f.log, room, target)
	if err := f.bridge.DeleteMessage(ctx, room.String(), target.String()); err != nil {
		return 0, err
	}
	// A reminder it asked for goes with it (an edited command sets it again).
	if n, err := f.bridge.DeleteEventReminders(ctx, room.String(), target.String()); err != nil {
		return 0, err
	} else if n > 0 {
		logFrom(ctx, f.log).Info("reminders of a taken-back message cancelled", "reminders", n)
	}
	links, err := f.bridge.LinksOf(ctx, room.String(), target.String())
	if err != nil {
		return 0, err
	}
	// The turns go first, each conversation's in one call, so that a
	// summary covering several of them is rewritten once.
	turns := map[string][]string{}
	for _, l := range links {
		if l.Kind == storage.LinkTurn {
			turns[l.ConversationID] = append(turns[l.ConversationID], l.DocID)
		}
	}
	for conv, ids := range turns {
		if err := f.backend.DeleteTurns(ctx, conv, ids, reason); err != nil && core.KindOf(err) != core.KindNotFound {
			return len(links), err // already gone is fine
		}
	}
	if len(turns) > 0 {
		dropWhyQuotingSummaries(ctx, f.bridge, f.rooms, f.log, room)
	}
	for _, l := range links {
		switch {
		case l.Kind == storage.LinkMemory:
			err = f.backend.DeleteMemory(ctx, l.DocID, reason)
		case l.Posted(): // a reply, an edit of one, a reaction: the whole answer goes
			err = redactReply(ctx, f.mx, f.window, f.bridge, room, id.EventID(l.DocID))
		}
		if err != nil && core.KindOf(err) != core.KindNotFound {
			return len(links), err
		}
		dropWhy(ctx, f.bridge, f.rooms, f.log, room, id.EventID(l.DocID), l.DocID)
		if err := f.bridge.UnlinkDoc(ctx, room.String(), l.DocID); err != nil {
			return len(links), err
		}
	}
	return len(links), f.bridge.UnlinkEvent(ctx, room.String(), target.String())
}

// redactReply redacts one of Ada's events (a reply, an edit of one, a
// reaction) and removes it from the room's context: it answered or quoted
// what a member took away.
func redactReply(ctx context.Context, mx *matrix, w *window, b *storage.Bridge, room id.RoomID, reply id.EventID) error {
	w.dropFromContext(room, reply)
	if err := b.DeleteMessage(ctx, room.String(), reply.String()); err != nil {
		return err
	}
	return mx.redact(ctx, room, reply)
}

// linkPosted records events Ada posted for a room event (kind: her replies
// to it, their edits, her reactions on it), so that a redaction or an edit
// of the event, or its sender's `!ada forget me`, redacts them: all of an
// answer goes, never only its first message. The links hold event ids only,
// so they are kept in privacy mode too. They are written even when ctx has
// ended (an answer taken back mid-send): what was posted must be found. A
// failure is logged: the events are already posted.
func linkPosted(ctx context.Context, b *storage.Bridge, log *slog.Logger, cause *event.Event, kind string, posted []id.EventID, at time.Time) {
	var links []storage.BridgeLink
	for _, r := range posted {
		if r != "" {
			links = append(links, storage.BridgeLink{EventID: cause.ID.String(), DocID: r.String(), Kind: kind, Sender: cause.Sender.String()})
		}
	}
	if len(links) == 0 {
		return
	}
	if err := b.AddLinks(context.WithoutCancel(ctx), cause.RoomID.String(), links, at); err != nil {
		logFrom(ctx, log).Error("could not link what Ada posted to its message; a redaction will not remove it", "kind", kind, "error", err)
	}
}

// linkReplies links Ada's reply messages to the message they answer
// (linkPosted).
func linkReplies(ctx context.Context, b *storage.Bridge, log *slog.Logger, cause *event.Event, replies []id.EventID, at time.Time) {
	linkPosted(ctx, b, log, cause, storage.LinkReply, replies, at)
}
