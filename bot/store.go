package bot

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
)

// store holds the bridge's own tables (storage/migrations/0002_bridge.sql).
// Writes go to the single-connection writer pool that the rest of Ada uses,
// so they queue in Go instead of failing with "database is locked".
type store struct {
	w, r *sql.DB
	now  func() time.Time
}

// Keys of bridge_state.
const (
	stateDeviceID  = "device_id"
	statePickleKey = "pickle_key"
)

const (
	getStateSQL = `SELECT value FROM bridge_state WHERE key = ?`
	setStateSQL = `INSERT INTO bridge_state (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`
)

// state returns a bridge_state value, "" when unset.
func (s *store) state(ctx context.Context, key string) (string, error) {
	var v string
	err := s.r.QueryRowContext(ctx, getStateSQL, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

func (s *store) setState(ctx context.Context, key, value string) error {
	_, err := s.w.ExecContext(ctx, setStateSQL, key, value)
	return err
}

// roomSettings is one bridge_rooms row.
type roomSettings struct {
	RoomID         id.RoomID
	ConversationID string
	StorageEnabled bool // false = privacy mode
	IntroSent      bool
}

const (
	ensureRoomSQL = `INSERT INTO bridge_rooms (room_id, conversation_id, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (room_id) DO NOTHING`
	getRoomSQL = `SELECT room_id, conversation_id, storage_enabled, intro_sent
		FROM bridge_rooms WHERE room_id = ?`
	setStorageSQL      = `UPDATE bridge_rooms SET storage_enabled = ?, updated_at = ? WHERE room_id = ?`
	setConversationSQL = `UPDATE bridge_rooms SET conversation_id = ?, updated_at = ? WHERE room_id = ?`
	claimIntroSQL      = `UPDATE bridge_rooms SET intro_sent = 1, updated_at = ? WHERE room_id = ? AND intro_sent = 0`
)

func scanRoom(row interface{ Scan(...any) error }) (roomSettings, error) {
	var rs roomSettings
	var room string
	err := row.Scan(&room, &rs.ConversationID, &rs.StorageEnabled, &rs.IntroSent)
	rs.RoomID = id.RoomID(room)
	return rs, err
}

// room returns the room's settings, creating the row (storage on, a new
// conversation) the first time the room is seen.
func (s *store) room(ctx context.Context, roomID id.RoomID) (roomSettings, error) {
	if _, err := s.w.ExecContext(ctx, ensureRoomSQL, roomID.String(), core.NewConversationID(), s.now().UnixMilli()); err != nil {
		return roomSettings{}, err
	}
	// Read from the writer: the row may have been created just now.
	return scanRoom(s.w.QueryRowContext(ctx, getRoomSQL, roomID.String()))
}

func (s *store) setStorage(ctx context.Context, roomID id.RoomID, enabled bool) error {
	if _, err := s.room(ctx, roomID); err != nil {
		return err
	}
	_, err := s.w.ExecContext(ctx, setStorageSQL, enabled, s.now().UnixMilli(), roomID.String())
	return err
}

// newConversation gives the room a fresh conversation id (!ada clear).
func (s *store) newConversation(ctx context.Context, roomID id.RoomID) (string, error) {
	if _, err := s.room(ctx, roomID); err != nil {
		return "", err
	}
	conv := core.NewConversationID()
	_, err := s.w.ExecContext(ctx, setConversationSQL, conv, s.now().UnixMilli(), roomID.String())
	return conv, err
}

// claimIntro marks the introduction as sent and reports whether this call
// did it, so two deliveries of one invite, or a restart, send it once.
func (s *store) claimIntro(ctx context.Context, roomID id.RoomID) (bool, error) {
	if _, err := s.room(ctx, roomID); err != nil {
		return false, err
	}
	res, err := s.w.ExecContext(ctx, claimIntroSQL, s.now().UnixMilli(), roomID.String())
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// roomMessage is one stored room message: text, user id, time. Nothing else
// about a member is ever stored.
type roomMessage struct {
	EventID id.EventID
	Sender  id.UserID
	Text    string
	Time    time.Time
}

const (
	addMessageSQL = `INSERT INTO bridge_messages (room_id, event_id, sender, text, ts) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (room_id, event_id) DO NOTHING`
	// pruneMessagesSQL keeps the newest ? messages of a room: the table is
	// the context window, not an archive.
	pruneMessagesSQL = `DELETE FROM bridge_messages WHERE room_id = ? AND event_id NOT IN (
		SELECT event_id FROM bridge_messages WHERE room_id = ? ORDER BY ts DESC, rowid DESC LIMIT ?)`
	recentMessagesSQL = `SELECT event_id, sender, text, ts FROM bridge_messages
		WHERE room_id = ? ORDER BY ts DESC, rowid DESC LIMIT ?`
	clearMessagesSQL     = `DELETE FROM bridge_messages WHERE room_id = ?`
	deleteOldMessagesSQL = `DELETE FROM bridge_messages WHERE ts < ?`
)

// addMessage stores m and trims the room to its newest keep messages, in
// one transaction.
func (s *store) addMessage(ctx context.Context, roomID id.RoomID, m roomMessage, keep int) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, addMessageSQL, roomID.String(), m.EventID.String(), m.Sender.String(), m.Text, m.Time.UnixMilli()); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, pruneMessagesSQL, roomID.String(), roomID.String(), keep); err != nil {
		return err
	}
	return tx.Commit()
}

// recentMessages returns up to limit newest messages, oldest first.
func (s *store) recentMessages(ctx context.Context, roomID id.RoomID, limit int) ([]roomMessage, error) {
	rows, err := s.r.QueryContext(ctx, recentMessagesSQL, roomID.String(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []roomMessage
	for rows.Next() {
		var m roomMessage
		var evID, sender string
		var ts int64
		if err := rows.Scan(&evID, &sender, &m.Text, &ts); err != nil {
			return nil, err
		}
		m.EventID, m.Sender, m.Time = id.EventID(evID), id.UserID(sender), time.UnixMilli(ts)
		out = append(out, m)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, rows.Err()
}

func (s *store) clearMessages(ctx context.Context, roomID id.RoomID) error {
	_, err := s.w.ExecContext(ctx, clearMessagesSQL, roomID.String())
	return err
}

// deleteMessagesBefore removes every stored room message older than cutoff.
func (s *store) deleteMessagesBefore(ctx context.Context, cutoff time.Time) (int, error) {
	res, err := s.w.ExecContext(ctx, deleteOldMessagesSQL, cutoff.UnixMilli())
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}
