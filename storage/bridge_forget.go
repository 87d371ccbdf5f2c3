package storage

import "context"

const (
	deleteMessagesFromSQL = `DELETE FROM bridge_messages WHERE room_id = ? AND sender = ?`
	deleteRoomLinksSQL    = `DELETE FROM bridge_links WHERE room_id = ?`
)

// PurgeRoom deletes the room's stored messages, its links and its last
// answer (`!ada why`): what the bridge itself holds from a room it left.
// Its settings row stays (privacy mode, the introduction sent).
func (b *Bridge) PurgeRoom(ctx context.Context, roomID string) error {
	for _, q := range []string{clearMessagesSQL, deleteRoomLinksSQL, deleteWhySQL} {
		if _, err := b.w.ExecContext(ctx, q, roomID); err != nil {
			return err
		}
	}
	return nil
}

// DeleteMessagesFrom deletes the room's stored messages of one sender
// (`!ada forget me`) and reports how many went.
func (b *Bridge) DeleteMessagesFrom(ctx context.Context, roomID, sender string) (int, error) {
	res, err := b.w.ExecContext(ctx, deleteMessagesFromSQL, roomID, sender)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}
