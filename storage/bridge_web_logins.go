package storage

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"time"

	"github.com/ada-chat/ada/core"
)

// The one-time login links of the memory page (`!ada web`,
// migrations/0015_bridge_web_logins.sql). The raw token leaves this file
// only towards the member it is issued to; the table keeps its SHA-256.

const (
	// A member gets no new link while one issued less than `every` ago is
	// outstanding: one insert decides, so two requests cannot both pass.
	issueWebLoginSQL = `INSERT INTO bridge_web_logins (token_hash, user_id, issued_at, expires_at)
		SELECT ?1, ?2, ?3, ?4 WHERE NOT EXISTS (
			SELECT 1 FROM bridge_web_logins WHERE user_id = ?2 AND issued_at > ?5)`
	// redeemWebLoginSQL spends a token: the row goes in the same statement
	// that reads it, so a token is never redeemed twice.
	redeemWebLoginSQL       = `DELETE FROM bridge_web_logins WHERE token_hash = ? AND expires_at > ? RETURNING user_id`
	deleteOldWebLoginsSQL   = `DELETE FROM bridge_web_logins WHERE expires_at <= ?`
	deleteUserWebLoginsSQL  = `DELETE FROM bridge_web_logins WHERE user_id = ?`
	deleteWebLoginByHashSQL = `DELETE FROM bridge_web_logins WHERE token_hash = ?`
	webLoginOpenSQL         = `SELECT 1 FROM bridge_web_logins WHERE token_hash = ? AND expires_at > ?`
)

// webSessionsKey is the bridge_state key of a member's page sessions'
// epoch: a random value that ending their sessions replaces. The page
// keeps the epoch a session was opened under and ends a session whose
// epoch is no longer current; no value yet is the epoch "".
func webSessionsKey(userID string) string { return "web_sessions:" + userID }

// webTokenBytes is the token's randomness: 32 bytes, 256 bits.
const webTokenBytes = 32

// IssueWebLogin makes a one-time login token for userID, valid for ttl from
// now, and returns it (base64url, unpadded). ok is false, and no token is
// made, when the member was given one less than every ago that is still
// outstanding.
func (b *Bridge) IssueWebLogin(ctx context.Context, userID string, now time.Time, ttl, every time.Duration) (token string, ok bool, err error) {
	if _, err := b.w.ExecContext(ctx, deleteOldWebLoginsSQL, now.UnixMilli()); err != nil {
		return "", false, err
	}
	raw := make([]byte, webTokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", false, err
	}
	token = base64.RawURLEncoding.EncodeToString(raw)
	res, err := b.w.ExecContext(ctx, issueWebLoginSQL, webTokenHash(token), userID,
		now.UnixMilli(), now.Add(ttl).UnixMilli(), now.Add(-every).UnixMilli())
	if err != nil {
		return "", false, err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return "", false, err
	}
	return token, true, nil
}

// RedeemWebLogin spends a token and returns the user id it was issued to
// and the epoch of the member's page sessions (WebSessionEpoch), read in the
// same transaction: a session opened with it ends at any later
// EndWebSessions. An unknown, spent or expired token is core.KindNotFound.
// Expired tokens are swept on the way.
func (b *Bridge) RedeemWebLogin(ctx context.Context, token string, now time.Time) (user, epoch string, err error) {
	if _, err := b.w.ExecContext(ctx, deleteOldWebLoginsSQL, now.UnixMilli()); err != nil {
		return "", "", err
	}
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return "", "", err
	}
	defer tx.Rollback()
	err = tx.QueryRowContext(ctx, redeemWebLoginSQL, webTokenHash(token), now.UnixMilli()).Scan(&user)
	if errors.Is(err, sql.ErrNoRows) {
		// Never quote the token: it may be a live one mistyped.
		return "", "", core.Errorf(core.KindNotFound, "login link unknown, used or expired")
	}
	if err != nil {
		return "", "", err
	}
	if err := tx.QueryRowContext(ctx, getStateSQL, webSessionsKey(user)).Scan(&epoch); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", "", err
	}
	return user, epoch, tx.Commit()
}

// WebLoginOpen reports whether a token can still be redeemed (issued,
// unspent, unexpired), without spending it.
func (b *Bridge) WebLoginOpen(ctx context.Context, token string, now time.Time) (bool, error) {
	var one int
	err := b.w.QueryRowContext(ctx, webLoginOpenSQL, webTokenHash(token), now.UnixMilli()).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// WebSessionEpoch is the current epoch of the member's page sessions; a
// session opened under another one has been ended. Read from the writer:
// an ending a moment ago holds at the next request.
func (b *Bridge) WebSessionEpoch(ctx context.Context, userID string) (string, error) {
	var epoch string
	err := b.w.QueryRowContext(ctx, getStateSQL, webSessionsKey(userID)).Scan(&epoch)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return epoch, err
}

// DropWebLogin withdraws a token that could not be delivered.
func (b *Bridge) DropWebLogin(ctx context.Context, token string) error {
	_, err := b.w.ExecContext(ctx, deleteWebLoginByHashSQL, webTokenHash(token))
	return err
}

// EndWebSessions ends what lets the member into the memory page (`!ada web
// logout`, `!ada forget me`): their outstanding tokens and kept sessions
// are deleted and their sessions' epoch replaced, in one transaction.
func (b *Bridge) EndWebSessions(ctx context.Context, userID string) error {
	raw := make([]byte, 16)
	if _, err := rand.Read(raw); err != nil {
		return err
	}
	tx, err := b.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, deleteUserWebLoginsSQL, userID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, dropUserWebSessionSQL, userID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, setStateSQL, webSessionsKey(userID), base64.RawURLEncoding.EncodeToString(raw)); err != nil {
		return err
	}
	return tx.Commit()
}

func webTokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
