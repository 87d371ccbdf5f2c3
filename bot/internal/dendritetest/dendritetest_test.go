package dendritetest_test

import (
	"context"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/internal/dendritetest"
)

// TestRoundTrip exercises what the bot's tests rely on: two users, a private
// room, an invite observed over /sync, a join, and a message delivered to the
// other user's /sync timeline.
func TestRoundTrip(t *testing.T) {
	srv := dendritetest.Start(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	alice := srv.Client(t, "alice")
	bob := srv.Client(t, "bob")
	if want := id.NewUserID("bob", srv.ServerName()); bob.UserID != want {
		t.Fatalf("bob user ID = %s, want %s", bob.UserID, want)
	}

	room, err := alice.CreateRoom(ctx, &mautrix.ReqCreateRoom{Preset: "private_chat", Name: "harness"})
	if err != nil {
		t.Fatalf("create room: %v", err)
	}
	if _, err := alice.InviteUser(ctx, room.RoomID, &mautrix.ReqInviteUser{UserID: bob.UserID}); err != nil {
		t.Fatalf("invite: %v", err)
	}

	// Dendrite fans events out to the sync API asynchronously, so observe
	// them by long-polling /sync, as the bot does, rather than expecting them
	// to be visible immediately.
	since := syncUntil(ctx, t, bob, "", func(r *mautrix.RespSync) bool {
		_, invited := r.Rooms.Invite[room.RoomID]
		return invited
	})
	if _, err := bob.JoinRoomByID(ctx, room.RoomID); err != nil {
		t.Fatalf("join: %v", err)
	}

	const body = "hello from alice"
	sent, err := alice.SendText(ctx, room.RoomID, body)
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	syncUntil(ctx, t, bob, since, func(r *mautrix.RespSync) bool {
		joined := r.Rooms.Join[room.RoomID]
		if joined == nil {
			return false
		}
		for _, evt := range joined.Timeline.Events {
			if evt.ID != sent.EventID {
				continue
			}
			if evt.Type != event.EventMessage || evt.Sender != alice.UserID || evt.Content.Raw["body"] != body {
				t.Fatalf("received %s from %s with content %v, want m.room.message %q from %s",
					evt.Type.Type, evt.Sender, evt.Content.Raw, body, alice.UserID)
			}
			return true
		}
		return false
	})
}

// syncUntil long-polls /sync from since until done accepts a response, and
// returns the next batch token.
func syncUntil(ctx context.Context, t *testing.T, cli *mautrix.Client, since string, done func(*mautrix.RespSync) bool) string {
	t.Helper()
	for {
		resp, err := cli.SyncRequest(ctx, 1000, since, "", false, event.PresenceOnline)
		if err != nil {
			t.Fatalf("sync as %s: %v", cli.UserID, err)
		}
		since = resp.NextBatch
		if done(resp) {
			return since
		}
	}
}
