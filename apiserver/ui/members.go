package ui

import "context"

// Members lets room members in: the Matrix bridge issues their one-time links and knows who is joined where.
type Members interface {
	// Redeem spends a one-time login token and returns the Matrix user id it was issued to,
	// and the epoch of that member's page sessions as it was when the token was spent.
	// An unknown, used or expired token gives an error (core kind NotFound).
	Redeem(ctx context.Context, token string) (userID, epoch string, err error)
	// SessionEpoch is the member's current sessions epoch: when the member ends their
	// sessions (`!ada web logout`, `!ada forget me`) it changes, and every session
	// opened under another epoch is over.
	SessionEpoch(ctx context.Context, userID string) (string, error)
	// JoinedRooms returns the rooms Ada is in that userID is joined to now.
	JoinedRooms(ctx context.Context, userID string) ([]string, error)
	// LinkOpen reports whether a one-time login token can still be
	// redeemed, without spending it: a spent link's page says so instead of
	// showing a button that cannot work.
	LinkOpen(ctx context.Context, token string) (bool, error)
	// RoomNames names rooms as their members know them (the room's name,
	// else its address, else its members); a room it cannot name is left
	// out, and the page shows its id.
	RoomNames(ctx context.Context, rooms []string) map[string]string
}

// Origins finds the room message a document was stored because of (the
// Matrix bridge's links, storage.Bridge); "" when none is known.
type Origins interface {
	EventOf(ctx context.Context, roomID, docID string) (eventID string, err error)
}
