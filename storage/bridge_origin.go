package storage

import (
	"context"
	"database/sql"
	"errors"
)

// EventOf returns the room event a document (a turn or a memory) was
// stored because of, or "" when none is linked: the memory page links to
// it on matrix.to. A turn linked to the question and to Ada's reply gives
// the earlier link.
func (b *Bridge) EventOf(ctx context.Context, roomID, docID string) (string, error) {
	var event string
	err := b.r.QueryRowContext(ctx, `SELECT event_id FROM bridge_links WHERE room_id = ? AND doc_id = ? AND kind IN (?, ?)
		ORDER BY ts, event_id LIMIT 1`, roomID, docID, LinkTurn, LinkMemory).Scan(&event)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return event, err
}
