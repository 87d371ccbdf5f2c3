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
// with `!ada remember`. Ada's own replies to the message are redacted too:
// they may quote it (issue 27).
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
		switch l.Kind {
		case storage.LinkMemory:
			err = f.backend.DeleteMemory(ctx, l.DocID, reason)
		case storage.LinkReply:
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

// redactReply redacts one of Ada's replies and removes it from the room's
// context: it answered or quoted what a member took away.
func redactReply(ctx context.Context, mx *matrix, w *window, b *storage.Bridge, room id.RoomID, reply id.EventID) error {
	w.dropFromContext(room, reply)
	if err := b.DeleteMessage(ctx, room.String(), reply.String()); err != nil {
		return err
	}
	return mx.redact(ctx, room, reply)
}

// linkReplies records Ada's replies to a room event, so that a redaction or
// an edit of the event redacts them. The links hold event ids only, so they
// are kept in privacy mode too. A failure is logged: the reply is already
// posted.
func linkReplies(ctx context.Context, b *storage.Bridge, log *slog.Logger, cause *event.Event, replies []id.EventID, at time.Time) {
	var links []storage.BridgeLink
	for _, r := range replies {
		if r != "" {
			links = append(links, storage.BridgeLink{EventID: cause.ID.String(), DocID: r.String(), Kind: storage.LinkReply, Sender: cause.Sender.String()})
		}
	}
	if len(links) == 0 {
		return
	}
	if err := b.AddLinks(ctx, cause.RoomID.String(), links, at); err != nil {
		logFrom(ctx, log).Error("could not link Ada's reply to its message; a redaction will not remove it", "error", err)
	}
}
