package storage

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

// Bridge is the Matrix bridge's own state, in its tables beside the
// documents (migrations/0002_bridge.sql, 0005 and 0009 for the links): bot
// facts, per-room settings, the rooms' recent messages, and the links from a
// room event to what Ada stored because of it. Its queries live here, beside
// their schema (bridge_redactions.go for the redactions received); the bot
// uses this type directly. (mautrix's crypto and
// room-state stores share the file but own their tables and versions.)
// Writes go to the single writer connection, so they queue in Go instead of
// failing with "database is locked".
type Bridge struct {
	w, r *sql.DB
}

// Bridge returns the bridge's state store on this database.
func (db *DB) Bridge() *Bridge { return &Bridge{w: db.write, r: db.read} }

// BridgeRoom is one bridge_rooms row. StorageEnabled false is privacy mode.
type BridgeRoom struct {
	RoomID         string
	ConversationID string
	StorageEnabled bool
	IntroSent      bool
}

// BridgeMessage is one stored room message: text, the sender's user id and
// the time. Nothing else about a member is ever stored.
type BridgeMessage struct {
	EventID, Sender, Text string
	Time                  time.Time
}

// BridgeLink ties what a room event caused to the event: a document (a turn
// or a memory) stored because of it, or an event Ada posted for it (a
// message in reply, an edit of one, a reaction: DocID holds Ada's event
// id), so that a redaction or an edit of the event deletes or redacts them.
type BridgeLink struct {
	EventID, DocID, Kind, ConversationID string
	// Sender is the member whose message a reply answers (`!ada forget
	// me` redacts the replies to them); empty on other links.
	Sender string
}

// The kinds of links (the table's CHECK constraint).
const (
	LinkTurn   = "turn"
	LinkMemory = "memory"
	LinkReply  = "reply"
	// An edit (m.replace) of one of Ada's replies, and a reaction of hers
	// on the message (🧠 ✅ ❌), both posted for the message's answer.
	LinkEdit     = "edit"
	LinkReaction = "reaction"
)

// Posted reports whether the link is to an event Ada posted (a reply, an
// edit of one, a reaction), which is redacted with its cause.
func (l BridgeLink) Posted() bool {
	return l.Kind == LinkReply || l.Kind == LinkEdit || l.Kind == LinkReaction
}

const (
	getStateSQL = `SELECT value FROM bridge_state WHERE key = ?`
	setStateSQL = `INSERT INTO bridge_state (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`

	ensureRoomSQL = `INSERT INTO bridge_rooms (room_id, conversation_id, updated_at) VALUES (?, ?, ?)
		ON CONFLICT (room_id) DO NOTHING`
	getRoomSQL = `SELECT room_id, conversation_id, storage_enabled, intro_sent
		FROM bridge_rooms WHERE room_id = ?`
	setStorageSQL      = `UPDATE bridge_rooms SET storage_enabled = ?, updated_at = ? WHERE room_id = ?`
	setConversationSQL = `UPDATE bridge_rooms SET conversation_id = ?, updated_at = ? WHERE room_id = ?`
	claimIntroSQL      = `UPDATE bridge_rooms SET intro_sent = 1, updated_at = ? WHERE room_id = ? AND intro_sent = 0`

	// A message redacted before it was handled is not stored
	// (bridge_redactions).
	addMessageSQL = `INSERT INTO bridge_messages (room_id, event_id, sender, text, ts)
		SELECT ?1, ?2, ?3, ?4, ?5 WHERE NOT EXISTS (
			SELECT 1 FROM bridge_redactions WHERE room_id = ?1 AND event_id = ?2)
		ON CONFLICT (room_id, event_id) DO NOTHING`
	// pruneMessagesSQL keeps the newest ? messages of a room: the table is
	// the context window, not an archive.
	pruneMessagesSQL = `DELETE FROM bridge_messages WHERE room_id = ? AND event_id NOT IN (
		SELECT event_id FROM bridge_messages WHERE room_id = ? ORDER BY ts DESC, rowid DESC LIMIT ?)`
	recentMessagesSQL = `SELECT event_id, sender, text, ts FROM bridge_messages
		WHERE room_id = ? ORDER BY ts DESC, rowid DESC LIMIT ?`
	clearMessagesSQL     = `DELETE FROM bridge_messages WHERE room_id = ?`
	deleteMessageSQL     = `DELETE FROM bridge_messages WHERE room_id = ? AND event_id = ?`
	deleteOldMessagesSQL = `DELETE FROM bridge_messages WHERE ts < ?`

	addLinkSQL = `INSERT INTO bridge_links (room_id, event_id, doc_id, kind, conversation_id, sender, ts)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`
	linksOfSQL = `SELECT event_id, doc_id, kind, conversation_id FROM bridge_links
		WHERE room_id = ? AND event_id = ?`
	// A document may be linked to several events (a question and its
	// reply): unlinking it removes every link.
	unlinkDocSQL      = `DELETE FROM bridge_links WHERE room_id = ? AND doc_id = ?`
	unlinkKindSQL     = `DELETE FROM bridge_links WHERE room_id = ? AND kind = ?`
	unlinkEventSQL    = `DELETE FROM bridge_links WHERE room_id = ? AND event_id = ?`
	deleteOldLinksSQL = `DELETE FROM bridge_links WHERE ts < ?`
)

// State returns a bridge_state value, "" when unset.
func (b *Bridge) State(ctx context.Context, key string) (string, error) {
	var v string
	err := b.r.QueryRowContext(ctx, getStateSQL, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// SetState sets a bridge_state value.
func (b *Bridge) SetState(ctx context.Context, key, value string) error {
	_, err := b.w.ExecContext(ctx, setStateSQL, key, value)
	return err
}

// Room returns the room's settings, creating its row the first time the
// room is seen (storage on, conversation newConversation).
func (b *Bridge) Room(ctx context.Context, roomID, newConversation string, at time.Time) (BridgeRoom, error) {
	if _, err := b.w.ExecContext(ctx, ensureRoomSQL, roomID, newConversation, at.UnixMilli()); err != nil {
		return BridgeRoom{}, err
	}
	var r BridgeRoom
	// Read from the writer: the row may have been created just now.
	err := b.w.QueryRowContext(ctx, getRoomSQL, roomID).Scan(&r.RoomID, &r.ConversationID, &r.StorageEnabled, &r.IntroSent)
	return r, err
}

// SetStorage turns the room's storage on or off (privacy mode). The room's
// row must exist (Room).
func (b *Bridge) SetStorage(ctx context.Context, roomID string, enabled bool, at time.Time) error {
	_, err := b.w.ExecContext(ctx, setStorageSQL, enabled, at.UnixMilli(), roomID)
	return err
}

// SetConversation gives the room a new conversation id (!ada clear).
func (b *Bridge) SetConversation(ctx context.Context, roomID, conversationID string, at time.Time) error {
	_, err := b.w.ExecContext(ctx, setConversationSQL, conversationID, at.UnixMilli(), roomID)
	return err
}

// ClaimIntro marks the room's introduction as sent and reports whether this
// call did it, so that two deliveries of one invite, or a restart, send it
// once.
func (b *Bridge) ClaimIntro(ctx context.Context, roomID string, at time.Time) (bool, error) {
	n, err := b.execCount(ctx, claimIntroSQL, at.UnixMilli(), roomID)
	return n == 1, err
}

// AddMessage stores m and trims the room to its newest keep messages, in
// one transaction.
func (b *Bridge) AddMessage(ctx context.Context, roomID string, m BridgeMessage, keep int) error {
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, addMessageSQL, roomID, m.EventID, m.Sender, m.Text, m.Time.UnixMilli()); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, pruneMessagesSQL, roomID, roomID, keep); err != nil {
		return err
	}
	return tx.Commit()
}

// RecentMessages returns up to limit newest messages of the room, oldest
// first.
func (b *Bridge) RecentMessages(ctx context.Context, roomID string, limit int) ([]BridgeMessage, error) {
	rows, err := b.r.QueryContext(ctx, recentMessagesSQL, roomID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BridgeMessage
	for rows.Next() {
		var m BridgeMessage
		var ts int64
		if err := rows.Scan(&m.EventID, &m.Sender, &m.Text, &ts); err != nil {
			return nil, err
		}
		m.Time = time.UnixMilli(ts)
		out = append(out, m)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, rows.Err()
}

// ClearMessages deletes the room's stored messages (!ada clear).
func (b *Bridge) ClearMessages(ctx context.Context, roomID string) error {
	_, err := b.w.ExecContext(ctx, clearMessagesSQL, roomID)
	return err
}

// DeleteMessage deletes one stored room message (a redaction).
func (b *Bridge) DeleteMessage(ctx context.Context, roomID, eventID string) error {
	_, err := b.w.ExecContext(ctx, deleteMessageSQL, roomID, eventID)
	return err
}

// DeleteMessagesBefore deletes every stored room message older than cutoff
// and reports how many went.
func (b *Bridge) DeleteMessagesBefore(ctx context.Context, cutoff time.Time) (int, error) {
	return b.execCount(ctx, deleteOldMessagesSQL, cutoff.UnixMilli())
}

// AddLinks links documents to the room events they came from, in one
// transaction. A link to an event already redacted makes its redaction
// pending again, due at once: what the event caused after its redaction
// (an answer that was being made) goes too.
func (b *Bridge) AddLinks(ctx context.Context, roomID string, links []BridgeLink, at time.Time) error {
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, l := range links {
		if _, err := tx.ExecContext(ctx, addLinkSQL, roomID, l.EventID, l.DocID, l.Kind, l.ConversationID, l.Sender, at.UnixMilli()); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, reopenRedactionSQL, at.UnixMilli(), roomID, l.EventID); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// LinksOf returns what was stored because of the event. It reads from the
// writer, so that links written just before are seen.
func (b *Bridge) LinksOf(ctx context.Context, roomID, eventID string) ([]BridgeLink, error) {
	rows, err := b.w.QueryContext(ctx, linksOfSQL, roomID, eventID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []BridgeLink
	for rows.Next() {
		var l BridgeLink
		if err := rows.Scan(&l.EventID, &l.DocID, &l.Kind, &l.ConversationID); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// UnlinkDoc removes every link of the room to the document.
func (b *Bridge) UnlinkDoc(ctx context.Context, roomID, docID string) error {
	_, err := b.w.ExecContext(ctx, unlinkDocSQL, roomID, docID)
	return err
}

// UnlinkEvent removes every link from the event (an edit, once what the
// old text caused is undone).
func (b *Bridge) UnlinkEvent(ctx context.Context, roomID, eventID string) error {
	_, err := b.w.ExecContext(ctx, unlinkEventSQL, roomID, eventID)
	return err
}

// UnlinkKind removes the room's links of one kind (!ada forget all).
func (b *Bridge) UnlinkKind(ctx context.Context, roomID, kind string) error {
	_, err := b.w.ExecContext(ctx, unlinkKindSQL, roomID, kind)
	return err
}

// DeleteLinksBefore removes links older than cutoff, the applied
// redactions received before it and the rooms' last answers (`!ada why`)
// older than it: retention deletes what they point to at
// the same age.
func (b *Bridge) DeleteLinksBefore(ctx context.Context, cutoff time.Time) error {
	if _, err := b.w.ExecContext(ctx, deleteOldLinksSQL, cutoff.UnixMilli()); err != nil {
		return err
	}
	if _, err := b.w.ExecContext(ctx, deleteOldRedactionsSQL, cutoff.UnixMilli()); err != nil {
		return err
	}
	_, err := b.w.ExecContext(ctx, deleteOldWhySQL, cutoff.UnixMilli())
	return err
}

// execCount runs one statement on the writer and returns how many rows it
// changed.
func (b *Bridge) execCount(ctx context.Context, query string, args ...any) (int, error) {
	res, err := b.w.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// execAll runs the statements, each with args, in one transaction: a
// deletion that spans tables leaves none of them half done.
func (b *Bridge) execAll(ctx context.Context, queries []string, args ...any) error {
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, q := range queries {
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
	}
	return tx.Commit()
}
