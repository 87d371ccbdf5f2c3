package bot

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/roomqueue"
)

// TestForgottenElsewhereKeepsPurgedRoomsPurged: a forgetting through
// another door runs in each room's queue; a room purged (left, forgotten)
// before its job ran stays without state in memory instead of getting a
// fresh one.
func TestForgottenElsewhereKeepsPurgedRoomsPurged(t *testing.T) {
	ctx := t.Context()
	var work roomqueue.Work
	b := &Bot{rooms: &roomStates{m: map[id.RoomID]*roomRuntime{}}, ready: make(chan struct{}),
		queue: roomqueue.New(ctx, 2, slog.New(slog.DiscardHandler), &work)}
	close(b.ready)
	room := id.RoomID("!left:x")
	b.rooms.get(room)
	// The room's current job leaves it once the forgetting's job is queued.
	running, release := make(chan struct{}), make(chan struct{})
	b.queue.Enqueue(room, roomqueue.Job{Name: "left", Run: func(context.Context) error {
		close(running)
		<-release
		b.rooms.forget(room)
		return nil
	}})
	<-running
	for _, forgot := range []func() error{
		func() error { return b.PersonForgotten(ctx, "@bob:x", "", time.Now()) },
		func() error { return b.RoomForgotten(ctx, "!other:x") },
		func() error { return b.DocumentsForgotten(ctx, []string{"doc-1"}) },
	} {
		if err := forgot(); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	if err := work.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	b.rooms.mu.Lock()
	defer b.rooms.mu.Unlock()
	if _, ok := b.rooms.m[room]; ok {
		t.Error("the purged room got its state back")
	}
}
