package bot

import (
	"context"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/storage"
)

// Kinds of links.
const (
	derivedTurn   = "turn"
	derivedMemory = "memory"
)

// derived is something Ada stored because of a room event: a turn of the
// room's conversation, or a memory.
type derived struct {
	EventID        id.EventID
	DocID          string
	Kind           string
	ConversationID string
}

// addDerived links documents to the room events they came from.
func (s *store) addDerived(ctx context.Context, room id.RoomID, rows []derived) error {
	links := make([]storage.BridgeLink, 0, len(rows))
	for _, d := range rows {
		links = append(links, storage.BridgeLink{EventID: d.EventID.String(), DocID: d.DocID, Kind: d.Kind, ConversationID: d.ConversationID})
	}
	return s.db.AddLinks(ctx, room.String(), links, s.now())
}

// derivedOf returns what was stored because of the event.
func (s *store) derivedOf(ctx context.Context, room id.RoomID, evt id.EventID) ([]derived, error) {
	links, err := s.db.LinksOf(ctx, room.String(), evt.String())
	out := make([]derived, 0, len(links))
	for _, l := range links {
		out = append(out, derived{EventID: id.EventID(l.EventID), DocID: l.DocID, Kind: l.Kind, ConversationID: l.ConversationID})
	}
	return out, err
}

// forgetDerived removes every link to the document.
func (s *store) forgetDerived(ctx context.Context, room id.RoomID, docID string) error {
	return s.db.UnlinkDoc(ctx, room.String(), docID)
}

// forgetRoomMemories removes the room's links to memories (!ada forget all).
func (s *store) forgetRoomMemories(ctx context.Context, room id.RoomID) error {
	return s.db.UnlinkKind(ctx, room.String(), derivedMemory)
}

// deleteDerivedBefore removes links older than cutoff: retention deletes
// what they point to at the same age.
func (s *store) deleteDerivedBefore(ctx context.Context, cutoff time.Time) error {
	return s.db.DeleteLinksBefore(ctx, cutoff)
}
