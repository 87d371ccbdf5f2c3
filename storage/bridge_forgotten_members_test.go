package storage

import (
	"context"
	"testing"
	"time"
)

// TestMemberForgottenAt: a member's forgetting is recorded per room and
// everywhere; ForgottenAt is the latest that covers the room, and an
// earlier record never moves it back.
func TestMemberForgottenAt(t *testing.T) {
	ctx := context.Background()
	b := openTestDB(t).Bridge()
	t0 := time.UnixMilli(1_700_000_000_000)
	at := func(user, room string) (time.Time, bool) {
		t.Helper()
		got, ok, err := b.ForgottenAt(ctx, user, room)
		if err != nil {
			t.Fatal(err)
		}
		return got, ok
	}
	if _, ok := at("@bob:x", "!r:x"); ok {
		t.Fatal("a member never forgotten has a forgetting")
	}
	for _, r := range []struct {
		room string
		at   time.Time
	}{{"!r:x", t0.Add(time.Minute)}, {"!r:x", t0}, {"", t0.Add(30 * time.Second)}} {
		if err := b.RecordForgotten(ctx, "@bob:x", r.room, r.at); err != nil {
			t.Fatal(err)
		}
	}
	if got, ok := at("@bob:x", "!r:x"); !ok || !got.Equal(t0.Add(time.Minute)) {
		t.Errorf("in !r:x: %v %v, want the later room record", got, ok)
	}
	if got, ok := at("@bob:x", "!other:x"); !ok || !got.Equal(t0.Add(30*time.Second)) {
		t.Errorf("in another room: %v %v, want the everywhere record", got, ok)
	}
	if _, ok := at("@carol:x", "!r:x"); ok {
		t.Error("another member counts as forgotten")
	}
	// core's listener records it too.
	if err := b.PersonForgotten(ctx, "@carol:x", "!r:x", t0); err != nil {
		t.Fatal(err)
	}
	if _, ok := at("@carol:x", "!r:x"); !ok {
		t.Error("PersonForgotten left no record")
	}
}

// holdWriter holds a write transaction on db's one writer connection until
// the test ends, and returns a context bounded at 10 s: the bound only
// ends a read that waits for the writer; one that does not returns at once.
func holdWriter(t *testing.T, db *DB) context.Context {
	t.Helper()
	ctx := context.Background()
	tx, err := db.Writer().BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	if _, err := tx.ExecContext(ctx, `INSERT INTO bridge_state (key, value) VALUES ('busy', '1')`); err != nil {
		t.Fatal(err)
	}
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	t.Cleanup(cancel)
	return qctx
}

// TestForgottenAtDoesNotWaitForTheWriter: every incoming message asks
// whether its sender was forgotten; the question reads a committed
// forgetting at once and does not queue behind a write in progress (an
// answer being stored) for the one writer connection.
func TestForgottenAtDoesNotWaitForTheWriter(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	b := db.Bridge()
	t0 := time.UnixMilli(1_700_000_000_000)
	if err := b.RecordForgotten(ctx, "@bob:x", "!r:x", t0); err != nil {
		t.Fatal(err)
	}
	qctx := holdWriter(t, db)
	got, ok, err := b.ForgottenAt(qctx, "@bob:x", "!r:x")
	if err != nil || !ok || !got.Equal(t0) {
		t.Fatalf("ForgottenAt during a write = %v, %v, %v; want %v without waiting for the writer", got, ok, err, t0)
	}
}
