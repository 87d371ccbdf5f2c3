package bot

import (
	"context"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// purgeReason is the history's reason for what a purge deletes.
const purgeReason = "Ada left the room (ROOM_DATA_ON_LEAVE=purge)"

// leftRoom handles the bot leaving a room (kicked, banned, the invitation
// withdrawn, the room upgraded and left): with ROOM_DATA_ON_LEAVE=purge,
// what the room stored is recorded to go and purged like a redaction
// (forget_pending.go): never lost, retried, finished after a crash. With
// keep, retention deletes it in time.
func (f *forgetting) leftRoom(ctx context.Context, room id.RoomID, leave id.EventID) {
	if !f.purgeOnLeave {
		return
	}
	if err := f.bridge.RecordPurge(ctx, room.String(), leave.String(), f.now()); err != nil {
		logFrom(ctx, f.log).Error("could not record the purge of a room left; purging without a record", "error", err)
	}
	f.schedule(ctx, room, leave, storage.RedactionPurge, 0)
}

// purgeRoom deletes everything the room caused to be stored: its messages,
// links and last answer in the bridge, and its turns, summaries and
// memories in the core (each memory's history says why).
//
// The bridge's part is done here although the core's ForgetListener does it
// again in-process (RoomForgotten): over ADA_API_URL the core runs in
// another process, whose listener cannot reach this bridge's tables.
func (f *forgetting) purgeRoom(ctx context.Context, room id.RoomID) error {
	if err := f.bridge.PurgeRoom(ctx, room.String()); err != nil {
		return err
	}
	res, err := f.backend.Forget(ctx, core.ForgetRequest{Entity: room.String(), Reason: purgeReason})
	if err != nil {
		return err
	}
	f.rooms.forget(room)
	logFrom(ctx, f.log).Info("room purged after leaving it", "turns", res.Turns, "summaries", res.Summaries, "memories", res.Memories)
	return nil
}
