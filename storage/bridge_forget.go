package storage

import "context"

const (
	deleteMessagesFromSQL = `DELETE FROM bridge_messages WHERE room_id = ? AND sender = ?`
	deleteRoomLinksSQL    = `DELETE FROM bridge_links WHERE room_id = ?`
	replyLinksToSQL       = `SELECT event_id, doc_id, kind FROM bridge_links
		WHERE room_id = ? AND sender = ? AND kind IN ('reply', 'edit', 'reaction')`
)

// PurgeRoom deletes the room's stored messages, its links and its last
// answer (`!ada why`), in one transaction: what the bridge itself holds
// from a room it left. Its settings row stays (privacy mode, the
// introduction sent).
func (b *Bridge) PurgeRoom(ctx context.Context, roomID string) error {
	return b.execAll(ctx, []string{clearMessagesSQL, deleteRoomLinksSQL, deleteWhySQL}, roomID)
}

// DeleteMessagesFrom deletes the room's stored messages of one sender
// (`!ada forget me`) and reports how many went.
func (b *Bridge) DeleteMessagesFrom(ctx context.Context, roomID, sender string) (int, error) {
	return b.execCount(ctx, deleteMessagesFromSQL, roomID, sender)
}

// ReplyLinksTo returns the links of what Ada posted for the member's
// messages in the room: her replies, their edits and her reactions
// (`!ada forget me` redacts them). It reads from the writer.
func (b *Bridge) ReplyLinksTo(ctx context.Context, roomID, sender string) ([]BridgeLink, error) {
	rows, err := b.w.QueryContext(ctx, replyLinksToSQL, roomID, sender)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BridgeLink
	for rows.Next() {
		l := BridgeLink{Sender: sender}
		if err := rows.Scan(&l.EventID, &l.DocID, &l.Kind); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}
