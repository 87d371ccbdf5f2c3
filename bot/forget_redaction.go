package bot

import (
	"context"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// redactionReason is what the history of a memory deleted by a redaction
// says.
const redactionReason = "the message it was learned from was redacted in the room"

// handleRedaction deletes the redacted message's stored text and what was
// stored only because of it (DECISIONS.md): the turns of a question and
// its answer, with the automatic memories learned only from them and the
// summaries covering them (the core rewrites those), and a memory stored
// with `!ada remember`.
func (f *forgetting) handleRedaction(ctx context.Context, room id.RoomID, target id.EventID) (err error) {
	log := logFrom(ctx, f.log)
	f.window.dropFromContext(room, target)
	f.rooms.get(room).dropWhy(target)
	if err := f.bridge.DeleteMessage(ctx, room.String(), target.String()); err != nil {
		return err
	}
	links, err := f.bridge.LinksOf(ctx, room.String(), target.String())
	if err != nil {
		return err
	}
	if len(links) > 0 { // a cascade: the message had caused something stored
		defer func() { f.observe.BotRedactionCascade(err) }()
	}
	deleted := 0
	for _, l := range links {
		switch l.Kind {
		case storage.LinkTurn:
			err = f.backend.DeleteTurn(ctx, l.ConversationID, l.DocID, redactionReason)
		case storage.LinkMemory:
			err = f.backend.DeleteMemory(ctx, l.DocID)
		}
		switch {
		case err == nil:
			deleted++
		case core.KindOf(err) != core.KindNotFound: // already gone is fine
			return err
		}
		f.rooms.get(room).dropWhy("", l.DocID)
		if err := f.bridge.UnlinkDoc(ctx, room.String(), l.DocID); err != nil {
			return err
		}
	}
	log.Info("redaction handled", "linked_deleted", deleted)
	return nil
}
