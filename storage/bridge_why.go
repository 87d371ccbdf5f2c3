package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"slices"
	"time"
)

// BridgeWhy is what a room's last answer used, for `!ada why`
// (migrations/0013_bridge_why.sql). Body is the bridge's own JSON.
type BridgeWhy struct {
	QuestionEvent, ReplyEvent string
	DocIDs                    []string
	Body                      []byte
	At                        time.Time
}

const (
	saveWhySQL = `INSERT INTO bridge_why (room_id, question_event, reply_event, doc_ids, body, ts) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (room_id) DO UPDATE SET question_event = excluded.question_event, reply_event = excluded.reply_event,
		doc_ids = excluded.doc_ids, body = excluded.body, ts = excluded.ts`
	loadWhySQL      = `SELECT question_event, reply_event, doc_ids, body, ts FROM bridge_why WHERE room_id = ?`
	deleteWhySQL    = `DELETE FROM bridge_why WHERE room_id = ?`
	deleteOldWhySQL = `DELETE FROM bridge_why WHERE ts < ?`
)

// SaveWhy keeps the room's last answer, replacing the one before.
func (b *Bridge) SaveWhy(ctx context.Context, roomID string, w BridgeWhy) error {
	ids, err := json.Marshal(w.DocIDs)
	if err != nil {
		return err
	}
	_, err = b.w.ExecContext(ctx, saveWhySQL, roomID, w.QuestionEvent, w.ReplyEvent, string(ids), string(w.Body), w.At.UnixMilli())
	return err
}

// LoadWhy returns the room's last answer, if one is kept.
func (b *Bridge) LoadWhy(ctx context.Context, roomID string) (BridgeWhy, bool, error) {
	var w BridgeWhy
	var ids, body string
	var ts int64
	err := b.w.QueryRowContext(ctx, loadWhySQL, roomID).Scan(&w.QuestionEvent, &w.ReplyEvent, &ids, &body, &ts)
	if errors.Is(err, sql.ErrNoRows) {
		return BridgeWhy{}, false, nil
	}
	if err != nil {
		return BridgeWhy{}, false, err
	}
	if err := json.Unmarshal([]byte(ids), &w.DocIDs); err != nil {
		return BridgeWhy{}, false, err
	}
	w.Body, w.At = []byte(body), time.UnixMilli(ts)
	return w, true, nil
}

// DropWhy deletes the room's last answer if it quotes what was just taken
// away: the event (its question or reply) or one of docIDs; with neither
// given, whatever it quotes.
func (b *Bridge) DropWhy(ctx context.Context, roomID, event string, docIDs ...string) error {
	w, ok, err := b.LoadWhy(ctx, roomID)
	if err != nil || !ok {
		return err
	}
	quotes := event == "" && len(docIDs) == 0
	quotes = quotes || (event != "" && (event == w.QuestionEvent || event == w.ReplyEvent))
	quotes = quotes || slices.ContainsFunc(docIDs, func(id string) bool { return slices.Contains(w.DocIDs, id) })
	if !quotes {
		return nil
	}
	_, err = b.w.ExecContext(ctx, deleteWhySQL, roomID)
	return err
}
