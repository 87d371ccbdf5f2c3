package bot

import (
	"context"
	"time"

	"maunium.net/go/mautrix/id"
)

// Kinds of bridge_derived rows.
const (
	derivedTurn   = "turn"
	derivedMemory = "memory"
)

// derived is something Ada stored because of a room event: a turn of the
// room's conversation, or a memory (storage/migrations/0005_bridge_derived.sql).
type derived struct {
	EventID        id.EventID
	DocID          string
	Kind           string
	ConversationID string
}

const (
	addDerivedSQL = `INSERT INTO bridge_derived (room_id, event_id, doc_id, kind, conversation_id, ts)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	derivedOfSQL = `SELECT event_id, doc_id, kind, conversation_id FROM bridge_derived
		WHERE room_id = ? AND event_id = ?`
	// The doc may be linked to several events (a question and its reply):
	// forgetting it removes every link.
	forgetDerivedSQL       = `DELETE FROM bridge_derived WHERE room_id = ? AND doc_id = ?`
	deleteMessageSQL       = `DELETE FROM bridge_messages WHERE room_id = ? AND event_id = ?`
	deleteOldDerivedSQL    = `DELETE FROM bridge_derived WHERE ts < ?`
	forgetRoomDerivedSQL   = `DELETE FROM bridge_derived WHERE room_id = ? AND kind = ?`
	derivedOfEventsMaxRows = 64
)

// addDerived links documents to the room events they came from, in one
// transaction.
func (s *store) addDerived(ctx context.Context, room id.RoomID, rows []derived) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	now := s.now().UnixMilli()
	for _, d := range rows {
		if _, err := tx.ExecContext(ctx, addDerivedSQL, room.String(), d.EventID.String(), d.DocID, d.Kind, d.ConversationID, now); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// derivedOf returns what was stored because of the event.
func (s *store) derivedOf(ctx context.Context, room id.RoomID, evt id.EventID) ([]derived, error) {
	rows, err := s.w.QueryContext(ctx, derivedOfSQL, room.String(), evt.String())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []derived
	for rows.Next() && len(out) < derivedOfEventsMaxRows {
		var d derived
		var ev string
		if err := rows.Scan(&ev, &d.DocID, &d.Kind, &d.ConversationID); err != nil {
			return nil, err
		}
		d.EventID = id.EventID(ev)
		out = append(out, d)
	}
	return out, rows.Err()
}

// forgetDerived removes every link to the document.
func (s *store) forgetDerived(ctx context.Context, room id.RoomID, docID string) error {
	_, err := s.w.ExecContext(ctx, forgetDerivedSQL, room.String(), docID)
	return err
}

// forgetRoomMemories removes the room's links to memories (!ada forget all).
func (s *store) forgetRoomMemories(ctx context.Context, room id.RoomID) error {
	_, err := s.w.ExecContext(ctx, forgetRoomDerivedSQL, room.String(), derivedMemory)
	return err
}

// deleteMessage removes one stored room message (a redaction).
func (s *store) deleteMessage(ctx context.Context, room id.RoomID, evt id.EventID) error {
	_, err := s.w.ExecContext(ctx, deleteMessageSQL, room.String(), evt.String())
	return err
}

// deleteDerivedBefore removes links older than cutoff: retention deletes
// what they point to at the same age.
func (s *store) deleteDerivedBefore(ctx context.Context, cutoff time.Time) error {
	_, err := s.w.ExecContext(ctx, deleteOldDerivedSQL, cutoff.UnixMilli())
	return err
}
