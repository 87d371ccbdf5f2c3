package storage

import "context"

const deleteMessagesFromSQL = `DELETE FROM bridge_messages WHERE room_id = ? AND sender = ?`

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
