package storage

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// BridgeReminder is one pending reminder of a room.
type BridgeReminder struct {
	ID      int64
	RoomID  string
	Number  int // the room's own number, from 1
	Member  string
	Mention bool // `me`: the post mentions Member
	Text    string
	Due     time.Time
	EventID string // the request the post replies to
	Created time.Time
}

// ReminderLimitError refuses a reminder over a limit of pending ones:
// Member is true for the member's limit in the room, else the room's.
type ReminderLimitError struct {
	Member bool
	Limit  int
}

func (e *ReminderLimitError) Error() string {
	if e.Member {
		return "the member has as many pending reminders as allowed"
	}
	return "the room has as many pending reminders as allowed"
}

const (
	reminderCols = `id, room_id, number, member, mention, text, due_at, event_id, created_at`

	countRoomRemindersSQL   = `SELECT count(*) FROM bridge_reminders WHERE room_id = ?`
	countMemberRemindersSQL = `SELECT count(*) FROM bridge_reminders WHERE room_id = ? AND member = ?`
	nextReminderNumberSQL   = `INSERT INTO bridge_reminder_numbers (room_id, last) VALUES (?, 1)
		ON CONFLICT (room_id) DO UPDATE SET last = last + 1 RETURNING last`
	addReminderSQL = `INSERT INTO bridge_reminders (room_id, number, member, mention, text, due_at, event_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	roomRemindersSQL = `SELECT ` + reminderCols + ` FROM bridge_reminders WHERE room_id = ? ORDER BY due_at, number`
	reminderSQL      = `SELECT ` + reminderCols + ` FROM bridge_reminders WHERE room_id = ? AND number = ?`
	dueRemindersSQL  = `SELECT ` + reminderCols + ` FROM bridge_reminders
		WHERE due_at <= ?1 AND (due_at > ?2 OR (due_at = ?2 AND id > ?3)) ORDER BY due_at, id LIMIT ?4`
	nextReminderDueSQL    = `SELECT min(due_at) FROM bridge_reminders WHERE due_at > ?`
	deleteReminderSQL     = `DELETE FROM bridge_reminders WHERE id = ?`
	deleteMemberRemSQL    = `DELETE FROM bridge_reminders WHERE room_id = ? AND member = ?`
	deleteEventRemSQL     = `DELETE FROM bridge_reminders WHERE room_id = ? AND event_id = ?`
	dropRoomRemindersSQL  = `DELETE FROM bridge_reminders WHERE room_id = ?`
	deleteOldRemindersSQL = `DELETE FROM bridge_reminders WHERE created_at < ?`
	dropRoomNumbersSQL    = `DELETE FROM bridge_reminder_numbers WHERE room_id = ?`
)

// AddReminder stores r with the room's next number, unless the member
// already has memberLimit pending reminders in the room or the room
// roomLimit (a *ReminderLimitError then). It returns r as stored.
func (b *Bridge) AddReminder(ctx context.Context, r BridgeReminder, memberLimit, roomLimit int) (BridgeReminder, error) {
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return r, err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, countMemberRemindersSQL, r.RoomID, r.Member).Scan(&n); err != nil {
		return r, err
	}
	if n >= memberLimit {
		return r, &ReminderLimitError{Member: true, Limit: memberLimit}
	}
	if err := tx.QueryRowContext(ctx, countRoomRemindersSQL, r.RoomID).Scan(&n); err != nil {
		return r, err
	}
	if n >= roomLimit {
		return r, &ReminderLimitError{Limit: roomLimit}
	}
	if err := tx.QueryRowContext(ctx, nextReminderNumberSQL, r.RoomID).Scan(&r.Number); err != nil {
		return r, err
	}
	res, err := tx.ExecContext(ctx, addReminderSQL, r.RoomID, r.Number, r.Member, r.Mention, r.Text,
		r.Due.UnixMilli(), r.EventID, r.Created.UnixMilli())
	if err != nil {
		return r, err
	}
	if r.ID, err = res.LastInsertId(); err != nil {
		return r, err
	}
	return r, tx.Commit()
}

// RoomReminders lists the room's pending reminders, soonest first.
func (b *Bridge) RoomReminders(ctx context.Context, roomID string) ([]BridgeReminder, error) {
	return b.reminders(ctx, roomRemindersSQL, roomID)
}

// Reminder returns the room's pending reminder number; ok is false when
// there is none (posted, cancelled, or never given).
func (b *Bridge) Reminder(ctx context.Context, roomID string, number int) (BridgeReminder, bool, error) {
	rs, err := b.reminders(ctx, reminderSQL, roomID, number)
	if err != nil || len(rs) == 0 {
		return BridgeReminder{}, false, err
	}
	return rs[0], true, nil
}

// DueReminders lists at most limit reminders due at now or before, in
// every room, the longest due first, from the one after `after` in that
// order (the last of the previous page; the zero BridgeReminder starts at
// the first): a page of reminders that stay, failing to post, does not
// hide the ones after it.
func (b *Bridge) DueReminders(ctx context.Context, now time.Time, after BridgeReminder, limit int) ([]BridgeReminder, error) {
	return b.reminders(ctx, dueRemindersSQL, now.UnixMilli(), after.Due.UnixMilli(), after.ID, limit)
}

// NextReminderDue is when the soonest reminder due after `after` is due;
// ok is false when none is.
func (b *Bridge) NextReminderDue(ctx context.Context, after time.Time) (time.Time, bool, error) {
	var due sql.NullInt64
	if err := b.r.QueryRowContext(ctx, nextReminderDueSQL, after.UnixMilli()).Scan(&due); err != nil {
		return time.Time{}, false, err
	}
	return time.UnixMilli(due.Int64), due.Valid, nil
}

// DeleteReminder deletes one reminder (posted or cancelled); it reports
// whether it was still there.
func (b *Bridge) DeleteReminder(ctx context.Context, id int64) (bool, error) {
	n, err := b.execCount(ctx, deleteReminderSQL, id)
	return n > 0, err
}

// DeleteMemberReminders deletes the member's pending reminders in the room
// (`!ada forget me`) and returns how many there were.
func (b *Bridge) DeleteMemberReminders(ctx context.Context, roomID, member string) (int, error) {
	return b.execCount(ctx, deleteMemberRemSQL, roomID, member)
}

// DeleteEventReminders deletes the reminders that the event asked for
// (it was redacted, or edited and runs again) and returns how many.
func (b *Bridge) DeleteEventReminders(ctx context.Context, roomID, eventID string) (int, error) {
	return b.execCount(ctx, deleteEventRemSQL, roomID, eventID)
}

// DeleteRemindersBefore deletes the pending reminders asked for before
// cutoff (retention: their text is what a member said then, like the
// room's messages of that time, whenever they are due) and returns how
// many went.
func (b *Bridge) DeleteRemindersBefore(ctx context.Context, cutoff time.Time) (int, error) {
	return b.execCount(ctx, deleteOldRemindersSQL, cutoff.UnixMilli())
}

// reminders reads the reminders query selects.
func (b *Bridge) reminders(ctx context.Context, query string, args ...any) ([]BridgeReminder, error) {
	// A reader: a long write (an import, a forgetting) does not hold the
	// reminder loop up, and what it reads was committed before it asked.
	rows, err := b.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BridgeReminder
	for rows.Next() {
		r, err := scanReminder(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func scanReminder(rows *sql.Rows) (BridgeReminder, error) {
	var r BridgeReminder
	var due, created int64
	err := rows.Scan(&r.ID, &r.RoomID, &r.Number, &r.Member, &r.Mention, &r.Text, &due, &r.EventID, &created)
	r.Due, r.Created = time.UnixMilli(due), time.UnixMilli(created)
	return r, err
}

// IsReminderLimit returns the limit error err carries, if any.
func IsReminderLimit(err error) (*ReminderLimitError, bool) {
	var e *ReminderLimitError
	ok := errors.As(err, &e)
	return e, ok
}
