package storage

import (
	"context"
	"database/sql"
	"strconv"
	"time"
)

// When a member was forgotten in a room (`!ada forget me`, `!ada forget
// @user`, or core's forgetting through another door), the bridge keeps the
// time, so that their earlier events, which the homeserver still serves,
// stay out of prompts: a later reply to one of them must not fetch it back
// (DECISIONS.md, "Identities, walls and forgetting"). The record holds no
// words: the member's user id, the room and the time, in bridge_state.

// forgottenEverywhere is the room part of a forgetting in every room; room
// ids start with '!', so it names none.
const forgottenEverywhere = "*"

// forgottenKey is the bridge_state key of the member's forgetting in the
// room (forgottenEverywhere for every room).
func forgottenKey(userID, roomID string) string {
	return "forgotten:" + userID + " " + roomID
}

const (
	// recordForgottenSQL keeps the latest time a member was forgotten.
	recordForgottenSQL = `INSERT INTO bridge_state (key, value) VALUES (?, ?)
		ON CONFLICT (key) DO UPDATE SET value = max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))`
	forgottenAtSQL = `SELECT max(CAST(value AS INTEGER)) FROM bridge_state WHERE key IN (?, ?)`
)

// RecordForgotten records that the member was forgotten at `at` in the
// room, or in every room when roomID is "".
func (b *Bridge) RecordForgotten(ctx context.Context, userID, roomID string, at time.Time) error {
	if roomID == "" {
		roomID = forgottenEverywhere
	}
	_, err := b.w.ExecContext(ctx, recordForgottenSQL, forgottenKey(userID, roomID), strconv.FormatInt(at.UnixMilli(), 10))
	return err
}

// ForgottenAt is the latest time the member was forgotten in the room or
// everywhere; ok is false when they never were. Their events sent before
// then are forgotten. Every incoming message asks, so it reads from a
// reader and never queues behind a write for the writer connection: a
// reader (WAL) sees every commit made before it began, and RecordForgotten
// commits before the forgetting goes on (`!ada forget me` before the
// room's next message is handled, in the room's order). A forgetting
// through another door still being written races with the message either
// way.
func (b *Bridge) ForgottenAt(ctx context.Context, userID, roomID string) (at time.Time, ok bool, err error) {
	var ms sql.NullInt64
	err = b.r.QueryRowContext(ctx, forgottenAtSQL, forgottenKey(userID, roomID), forgottenKey(userID, forgottenEverywhere)).Scan(&ms)
	if err != nil || !ms.Valid { // max() gives one row, NULL when never forgotten
		return time.Time{}, false, err
	}
	return time.UnixMilli(ms.Int64), true, nil
}
