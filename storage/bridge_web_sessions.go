package storage

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/ada-chat/ada/core"
)

// Members' memory page sessions, kept over restarts (issue 40 item 5,
// migrations/0018_bridge_web_sessions.sql). The page holds sessions in
// memory; a member's is also written here, by the SHA-256 of its id only,
// so that a restart does not log members out and the file holds nothing
// a browser could use.

// webSessionGrace is how long a row stays past its expiry: an expired
// session is then still known as a member's, and told how to come back.
const webSessionGrace = 24 * time.Hour

const (
	keepWebSessionSQL = `INSERT INTO bridge_web_sessions (id_hash, user_id, epoch, expires_at, seen_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (id_hash) DO UPDATE SET seen_at = excluded.seen_at`
	keptWebSessionSQL     = `SELECT user_id, epoch, expires_at, seen_at FROM bridge_web_sessions WHERE id_hash = ?`
	dropWebSessionSQL     = `DELETE FROM bridge_web_sessions WHERE id_hash = ?`
	dropUserWebSessionSQL = `DELETE FROM bridge_web_sessions WHERE user_id = ?`
	sweepWebSessionsSQL   = `DELETE FROM bridge_web_sessions WHERE expires_at <= ?`
)

// WebSession is a member's page session as kept: whose, under which of
// their sessions epochs, until when, and when last used.
type WebSession struct {
	UserID, Epoch string
	Expires, Seen time.Time
}

// KeepWebSession writes the session with this id (a new one whole, a known
// one's last use), and sweeps the rows long past their expiry.
func (b *Bridge) KeepWebSession(ctx context.Context, id string, s WebSession, now time.Time) error {
	if _, err := b.w.ExecContext(ctx, sweepWebSessionsSQL, now.Add(-webSessionGrace).UnixMilli()); err != nil {
		return err
	}
	_, err := b.w.ExecContext(ctx, keepWebSessionSQL, webTokenHash(id), s.UserID, s.Epoch, s.Expires.UnixMilli(), s.Seen.UnixMilli())
	return err
}

// KeptWebSession reads the session with this id, expired or not (the page
// decides); core.KindNotFound when none is kept.
func (b *Bridge) KeptWebSession(ctx context.Context, id string) (WebSession, error) {
	var s WebSession
	var expires, seen int64
	err := b.w.QueryRowContext(ctx, keptWebSessionSQL, webTokenHash(id)).Scan(&s.UserID, &s.Epoch, &expires, &seen)
	if errors.Is(err, sql.ErrNoRows) {
		return WebSession{}, core.Errorf(core.KindNotFound, "no such page session")
	}
	if err != nil {
		return WebSession{}, err
	}
	s.Expires, s.Seen = time.UnixMilli(expires), time.UnixMilli(seen)
	return s, nil
}

// DropWebSession forgets a session (logging out, or ended).
func (b *Bridge) DropWebSession(ctx context.Context, id string) error {
	_, err := b.w.ExecContext(ctx, dropWebSessionSQL, webTokenHash(id))
	return err
}
