package storage

import (
	"context"
	"time"
)

// BridgeUsage is one answer counted against a room's quotas: who asked,
// when, and the model tokens it took.
type BridgeUsage struct {
	ID     int64
	Member string
	Time   time.Time
	Tokens int
}

const (
	roomSettingsSQL   = `SELECT name, value FROM bridge_room_settings WHERE room_id = ?`
	setRoomSettingSQL = `INSERT INTO bridge_room_settings (room_id, name, value, updated_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (room_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`
	unsetRoomSettingSQL = `DELETE FROM bridge_room_settings WHERE room_id = ? AND name = ?`
	dropSettingsSQL     = `DELETE FROM bridge_room_settings WHERE room_id = ?`

	addUsageSQL    = `INSERT INTO bridge_usage (room_id, member, ts, tokens) VALUES (?, ?, ?, 0)`
	setTokensSQL   = `UPDATE bridge_usage SET tokens = ? WHERE id = ?`
	dropUsageSQL   = `DELETE FROM bridge_usage WHERE id = ?`
	pruneUsageSQL  = `DELETE FROM bridge_usage WHERE room_id = ? AND ts < ?`
	usageSinceSQL  = `SELECT id, member, ts, tokens FROM bridge_usage WHERE room_id = ? AND ts >= ? ORDER BY ts, id`
	dropRoomUseSQL = `DELETE FROM bridge_usage WHERE room_id = ?`
	// memberUsageSinceSQL reads the member's answers in every room (the
	// table holds about a day of answers: AddUsage prunes each room).
	memberUsageSinceSQL = `SELECT id, member, ts, tokens FROM bridge_usage WHERE member = ? AND ts >= ? ORDER BY ts, id`
)

// RoomSettings returns the settings the room chose, by name; a setting
// absent from the map is the operator's default.
func (b *Bridge) RoomSettings(ctx context.Context, roomID string) (map[string]string, error) {
	// From the writer: a setting changed a moment ago applies to the next
	// message.
	rows, err := b.w.QueryContext(ctx, roomSettingsSQL, roomID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make(map[string]string)
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return nil, err
		}
		out[name] = value
	}
	return out, rows.Err()
}

// SetRoomSetting stores the room's choice for one setting.
func (b *Bridge) SetRoomSetting(ctx context.Context, roomID, name, value string, at time.Time) error {
	_, err := b.w.ExecContext(ctx, setRoomSettingSQL, roomID, name, value, at.UnixMilli())
	return err
}

// UnsetRoomSetting returns one setting to the operator's default; it
// reports whether the room had chosen it.
func (b *Bridge) UnsetRoomSetting(ctx context.Context, roomID, name string) (bool, error) {
	n, err := b.execCount(ctx, unsetRoomSettingSQL, roomID, name)
	return n > 0, err
}

// DropRoomSettings deletes the room's settings, its quota counters, its
// reminders and their numbering, in one transaction: the bot left the
// room, and a new invitation starts from the operator's defaults.
func (b *Bridge) DropRoomSettings(ctx context.Context, roomID string) error {
	return b.execAll(ctx, []string{dropSettingsSQL, dropRoomUseSQL, dropRoomRemindersSQL, dropRoomNumbersSQL}, roomID)
}

// AddUsage counts one answer for member in the room, with no tokens yet,
// and deletes the room's counts older than forgetBefore; it returns the new
// count's id (SetUsageTokens, DropUsage).
func (b *Bridge) AddUsage(ctx context.Context, roomID, member string, at, forgetBefore time.Time) (int64, error) {
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, pruneUsageSQL, roomID, forgetBefore.UnixMilli()); err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, addUsageSQL, roomID, member, at.UnixMilli())
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	return id, tx.Commit()
}

// SetUsageTokens records the model tokens an answer took.
func (b *Bridge) SetUsageTokens(ctx context.Context, id int64, tokens int) error {
	_, err := b.w.ExecContext(ctx, setTokensSQL, tokens, id)
	return err
}

// DropUsage uncounts an answer that was not given (the model failed).
func (b *Bridge) DropUsage(ctx context.Context, id int64) error {
	_, err := b.w.ExecContext(ctx, dropUsageSQL, id)
	return err
}

// UsageSince lists the room's counted answers from since on, oldest first.
func (b *Bridge) UsageSince(ctx context.Context, roomID string, since time.Time) ([]BridgeUsage, error) {
	return b.usage(ctx, usageSinceSQL, roomID, since)
}

// MemberUsageSince lists the member's counted answers in all rooms from
// since on, oldest first: a member's quotas hold across rooms.
func (b *Bridge) MemberUsageSince(ctx context.Context, member string, since time.Time) ([]BridgeUsage, error) {
	return b.usage(ctx, memberUsageSinceSQL, member, since)
}

func (b *Bridge) usage(ctx context.Context, query, key string, since time.Time) ([]BridgeUsage, error) {
	rows, err := b.w.QueryContext(ctx, query, key, since.UnixMilli())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BridgeUsage
	for rows.Next() {
		var u BridgeUsage
		var ts int64
		if err := rows.Scan(&u.ID, &u.Member, &ts, &u.Tokens); err != nil {
			return nil, err
		}
		u.Time = time.UnixMilli(ts)
		out = append(out, u)
	}
	return out, rows.Err()
}
