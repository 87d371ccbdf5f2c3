package bot

import (
	"context"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// storageOn reports whether anything from the room may be written: the
// operator allows it (STORE_IN_RAG) and the room is not in privacy mode.
func (b *Bot) storageOn(s storage.BridgeRoom) bool { return b.opts.StoreInRAG && s.StorageEnabled }

// maxContextRunes bounds one remembered message, so that a long answer or
// paste cannot crowd everything else out of the model's context.
const maxContextRunes = 2000

// remember adds a room message to the room's context window: always in
// memory, and in bridge_messages only when storage is on.
func (b *Bot) remember(ctx context.Context, s storage.BridgeRoom, m storage.BridgeMessage) {
	keep := b.opts.MaxContextMessages
	if keep <= 0 {
		return
	}
	if r := []rune(m.Text); len(r) > maxContextRunes {
		m.Text = string(r[:maxContextRunes]) + "…"
	}
	rt := b.rooms.get(id.RoomID(s.RoomID))
	b.loadRing(ctx, rt, s)
	rt.ring = append(rt.ring, m)
	if over := len(rt.ring) - keep; over > 0 {
		rt.ring = append(rt.ring[:0:0], rt.ring[over:]...)
	}
	if !b.storageOn(s) {
		return
	}
	if err := b.bridge.AddMessage(ctx, s.RoomID, m, keep); err != nil {
		logFrom(ctx, b.log).Error("could not store a room message", "error", err)
	}
}

// loadRing fills the in-memory window from the table once per process, so
// that context survives a restart where storage is allowed.
func (b *Bot) loadRing(ctx context.Context, rt *roomRuntime, s storage.BridgeRoom) {
	if rt.ringLoaded {
		return
	}
	rt.ringLoaded = true
	if !b.storageOn(s) {
		return
	}
	msgs, err := b.bridge.RecentMessages(ctx, s.RoomID, b.opts.MaxContextMessages)
	if err != nil {
		logFrom(ctx, b.log).Error("could not load the room's recent messages", "error", err)
		return
	}
	rt.ring = msgs
}

// contextFor returns the window as context for an answer to `asking`: the
// room's recent messages before it, with sender names, none older than the
// retention limit.
func (b *Bot) contextFor(ctx context.Context, s storage.BridgeRoom, asking id.EventID) []core.ContextMessage {
	rt := b.rooms.get(id.RoomID(s.RoomID))
	b.loadRing(ctx, rt, s)
	var cutoff time.Time
	if b.opts.RetentionDays > 0 {
		cutoff = b.now().AddDate(0, 0, -b.opts.RetentionDays)
	}
	out := make([]core.ContextMessage, 0, len(rt.ring))
	for _, m := range rt.ring {
		if m.EventID == asking.String() || m.Time.Before(cutoff) {
			continue
		}
		out = append(out, core.ContextMessage{Sender: b.displayName(ctx, id.RoomID(s.RoomID), id.UserID(m.Sender)), Text: m.Text, Timestamp: m.Time})
	}
	return out
}

// forgetContext empties the room's window in memory and in the table
// (!ada clear).
func (b *Bot) forgetContext(ctx context.Context, room id.RoomID) error {
	rt := b.rooms.get(room)
	rt.ring, rt.ringLoaded, rt.images = nil, true, nil
	return b.bridge.ClearMessages(ctx, room.String())
}
