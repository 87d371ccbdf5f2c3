package storage

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// BridgeRedaction is a redaction the bridge received, or a purge of a room
// it left, not applied yet (migrations/0012_bridge_redactions.sql).
type BridgeRedaction struct {
	RoomID, EventID string
	// Kind is RedactionEvent or RedactionPurge.
	Kind string
	// Attempts counts the failed applications so far, for the backoff.
	Attempts int
}

// The kinds of bridge_redactions rows.
const (
	RedactionEvent = "redaction" // the event's cascade
	RedactionPurge = "purge"     // everything the room stored
)

const (
	// A redaction received again (a redelivered event) is pending again:
	// applying it twice deletes nothing twice.
	recordRedactionSQL = `INSERT INTO bridge_redactions (room_id, event_id, kind, received_at, next_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (room_id, event_id) DO UPDATE SET applied_at = 0, next_at = excluded.next_at`
	dueRedactionsSQL = `SELECT room_id, event_id, kind, attempts FROM bridge_redactions
		WHERE applied_at = 0 AND next_at <= ? ORDER BY next_at, received_at LIMIT ?`
	redactionAppliedSQL = `UPDATE bridge_redactions SET applied_at = ?, attempts = 0 WHERE room_id = ? AND event_id = ?`
	redactionFailedSQL  = `UPDATE bridge_redactions SET attempts = attempts + 1, next_at = ?
		WHERE room_id = ? AND event_id = ? AND applied_at = 0`
	// An abandoned redaction stays pending but is never due again: next_at
	// is the largest time.
	redactionAbandonedSQL = `UPDATE bridge_redactions SET attempts = attempts + 1, next_at = 9223372036854775807
		WHERE room_id = ? AND event_id = ? AND applied_at = 0`
	isRedactedSQL = `SELECT 1 FROM bridge_redactions WHERE room_id = ? AND event_id = ?`
	// reopenRedactionSQL makes an applied redaction pending again when
	// something is linked to its event afterwards.
	reopenRedactionSQL = `UPDATE bridge_redactions SET applied_at = 0, next_at = ?
		WHERE room_id = ? AND event_id = ? AND applied_at > 0`
	deleteOldRedactionsSQL = `DELETE FROM bridge_redactions WHERE applied_at > 0 AND received_at < ?`
)

// RecordRedaction records that the room's event was redacted, before
// anything is deleted: the row stays pending until RedactionApplied.
func (b *Bridge) RecordRedaction(ctx context.Context, roomID, eventID string, at time.Time) error {
	_, err := b.w.ExecContext(ctx, recordRedactionSQL, roomID, eventID, RedactionEvent, at.UnixMilli(), at.UnixMilli())
	return err
}

// RecordPurge records that everything the room stored is to go (the bot
// left it, by the event leave), pending until RedactionApplied.
func (b *Bridge) RecordPurge(ctx context.Context, roomID, leave string, at time.Time) error {
	_, err := b.w.ExecContext(ctx, recordRedactionSQL, roomID, leave, RedactionPurge, at.UnixMilli(), at.UnixMilli())
	return err
}

// DueRedactions returns up to limit pending redactions due at now, the
// longest waiting first.
func (b *Bridge) DueRedactions(ctx context.Context, now time.Time, limit int) ([]BridgeRedaction, error) {
	rows, err := b.w.QueryContext(ctx, dueRedactionsSQL, now.UnixMilli(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BridgeRedaction
	for rows.Next() {
		var r BridgeRedaction
		if err := rows.Scan(&r.RoomID, &r.EventID, &r.Kind, &r.Attempts); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// RedactionApplied marks the redaction done: everything linked to the event
// was deleted.
func (b *Bridge) RedactionApplied(ctx context.Context, roomID, eventID string, at time.Time) error {
	_, err := b.w.ExecContext(ctx, redactionAppliedSQL, at.UnixMilli(), roomID, eventID)
	return err
}

// RedactionFailed counts a failed application and makes the redaction due
// again at next.
func (b *Bridge) RedactionFailed(ctx context.Context, roomID, eventID string, next time.Time) error {
	_, err := b.w.ExecContext(ctx, redactionFailedSQL, next.UnixMilli(), roomID, eventID)
	return err
}

// RedactionAbandoned counts a last failed application and leaves the
// redaction pending but never due: visible in bridge_redactions (applied_at
// 0, next_at the largest integer) until an operator makes it due again.
func (b *Bridge) RedactionAbandoned(ctx context.Context, roomID, eventID string) error {
	_, err := b.w.ExecContext(ctx, redactionAbandonedSQL, roomID, eventID)
	return err
}

// Redacted reports whether the room's event was redacted (applied or not).
// It reads from the writer, so that a redaction recorded just before is seen.
func (b *Bridge) Redacted(ctx context.Context, roomID, eventID string) (bool, error) {
	var one int
	err := b.w.QueryRowContext(ctx, isRedactedSQL, roomID, eventID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}
