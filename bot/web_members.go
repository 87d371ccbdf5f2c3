package bot

import (
	"context"
	"slices"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// Redeem and JoinedRooms are what the memory page asks the bridge about a
// member (apiserver/ui.Members, satisfied by *Bot without importing it).

// Redeem spends a one-time login token from `!ada web` and returns the
// Matrix user id it was issued to and the epoch of their page sessions
// (SessionEpoch). An unknown, used or expired token is core.KindNotFound; a
// token is redeemed at most once, even by concurrent calls (one DELETE ...
// RETURNING).
func (b *Bot) Redeem(ctx context.Context, token string) (userID, epoch string, err error) {
	return b.bridge.RedeemWebLogin(ctx, token, b.now())
}

// SessionEpoch is the current epoch of the member's page sessions: `!ada
// web logout` and `!ada forget me` replace it, which ends every session
// opened under the old one. It lives in the bridge's state (the database),
// so it holds whichever process serves the page.
func (b *Bot) SessionEpoch(ctx context.Context, userID string) (string, error) {
	return b.bridge.WebSessionEpoch(ctx, userID)
}

// JoinedRooms returns the rooms Ada is in that userID is joined to now.
// Ada's rooms come from the homeserver (/joined_rooms), the member's
// membership of each from mautrix's state store, which every /sync keeps
// current (leaves included) and which is local: one request per call, not
// one per room. Before the bridge is connected it is core.KindUnavailable.
func (b *Bot) JoinedRooms(ctx context.Context, userID string) ([]string, error) {
	select {
	case <-b.ready:
	default:
		return nil, core.Errorf(core.KindUnavailable, "the Matrix bridge is not connected yet")
	}
	resp, err := b.mx.cli.JoinedRooms(ctx)
	if err != nil {
		return nil, core.Errorf(core.KindUnavailable, "ask the homeserver for Ada's rooms: %v", err)
	}
	var out []string
	for _, room := range resp.JoinedRooms {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if b.mx.cli.StateStore.IsMembership(ctx, room, id.UserID(userID), event.MembershipJoin) {
			out = append(out, room.String())
		}
	}
	slices.Sort(out)
	return out, nil
}

// KeepSession, KeptSession and DropSession keep members' page sessions in
// the bridge's state over restarts (apiserver/ui.SessionKeeper), by the
// hash of the session id only (storage.KeepWebSession).
func (b *Bot) KeepSession(ctx context.Context, sessionID, userID, epoch string, expires, seen time.Time) error {
	return b.bridge.KeepWebSession(ctx, sessionID, storage.WebSession{UserID: userID, Epoch: epoch, Expires: expires, Seen: seen}, b.now())
}

// KeptSession is a kept session, expired or not; core.KindNotFound when
// none is kept.
func (b *Bot) KeptSession(ctx context.Context, sessionID string) (userID, epoch string, expires, seen time.Time, err error) {
	s, err := b.bridge.KeptWebSession(ctx, sessionID)
	return s.UserID, s.Epoch, s.Expires, s.Seen, err
}

// DropSession forgets a kept session (logging out).
func (b *Bot) DropSession(ctx context.Context, sessionID string) error {
	return b.bridge.DropWebSession(ctx, sessionID)
}
