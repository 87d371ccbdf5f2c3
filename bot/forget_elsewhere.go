package bot

import (
	"context"
	"slices"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/roomqueue"
	"github.com/ada-chat/ada/storage"
)

// What was forgotten through another door (the API, MCP, the memory page,
// retention) leaves the bridge's memory too when the bridge runs in the
// core's process: the stored copies are deleted by storage (core calls it),
// these drop the rooms' in-memory copies, in each room's own jobs (the
// only ones that touch a room's runtime state).

// DocumentsForgotten drops the rooms' last answers kept in memory for
// `!ada why` that quote one of the documents.
func (b *Bot) DocumentsForgotten(ctx context.Context, ids []string) error {
	b.inEachRoom(ctx, "forgotten documents", "", func(rt *roomRuntime) { rt.dropWhy("", ids...) })
	return nil
}

// PersonForgotten drops the member's messages from the room's context
// window in memory (every room's when roomID is ""), and the last answers
// to their questions: by the recorded asker, or for one kept without it,
// by the window.
func (b *Bot) PersonForgotten(ctx context.Context, userID, roomID string, _ time.Time) error {
	b.inEachRoom(ctx, "forgotten member", id.RoomID(roomID), func(rt *roomRuntime) {
		if la := rt.lastAnswer; la != nil && la.askerID == id.UserID(userID) {
			rt.lastAnswer = nil
		}
		for _, m := range rt.ring {
			if m.Sender == userID {
				rt.dropWhy(id.EventID(m.EventID))
			}
		}
		rt.ring = slices.DeleteFunc(rt.ring, func(m storage.BridgeMessage) bool { return m.Sender == userID })
	})
	return nil
}

// RoomForgotten drops the room's context window, last answer and members'
// listings held in memory.
func (b *Bot) RoomForgotten(ctx context.Context, roomID string) error {
	b.inEachRoom(ctx, "forgotten room", id.RoomID(roomID), func(rt *roomRuntime) {
		rt.ring, rt.lastAnswer, rt.listed = nil, nil, nil
	})
	return nil
}

// inEachRoom runs fn as an urgent job of every room held in memory, or of
// room only when it is not "" (no job queued for the others). Before
// the bridge has caught up no room state is held (events are dispatched
// after), and once it stops the queue refuses the jobs: nothing to drop. A
// room purged (left, forgotten) before its job runs is skipped, so that it
// stays without state.
func (b *Bot) inEachRoom(ctx context.Context, name string, only id.RoomID, fn func(*roomRuntime)) {
	select {
	case <-b.ready:
	default:
		return
	}
	b.rooms.mu.Lock()
	rooms := make([]id.RoomID, 0, len(b.rooms.m))
	for room := range b.rooms.m {
		if only == "" || room == only {
			rooms = append(rooms, room)
		}
	}
	b.rooms.mu.Unlock()
	for _, room := range rooms {
		b.queue.EnqueueUrgent(room, roomqueue.Job{Name: name, Ctx: context.WithoutCancel(ctx), Run: func(context.Context) error {
			if rt, ok := b.rooms.held(room); ok {
				fn(rt)
			}
			return nil
		}})
	}
}
