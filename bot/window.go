package bot

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// window is each room's context window: the recent messages given to the
// model with a question, kept in memory and, where storage is on, in
// bridge_messages so that they survive a restart.
type window struct {
	bridge *storage.Bridge
	rooms  *roomStates
	mx     *matrix // for the senders' names
	// keep is MAX_CONTEXT_MESSAGES; retentionDays bounds the age of what
	// is given; storeInRAG is STORE_IN_RAG.
	keep, retentionDays int
	storeInRAG          bool
	now                 func() time.Time
	log                 *slog.Logger
}

// storageOn reports whether anything from the room may be written: the
// operator allows it (STORE_IN_RAG) and the room is not in privacy mode.
func (w *window) storageOn(s storage.BridgeRoom) bool { return w.storeInRAG && s.StorageEnabled }

// maxContextRunes bounds one remembered message, so that a long answer or
// paste cannot crowd everything else out of the model's context.
const maxContextRunes = 2000

// remember adds a room message to the room's context window: always in
// memory, and in bridge_messages only when storage is on.
func (w *window) remember(ctx context.Context, s storage.BridgeRoom, m storage.BridgeMessage) {
	keep := w.keep
	if keep <= 0 {
		return
	}
	if r := []rune(m.Text); len(r) > maxContextRunes {
		m.Text = string(r[:maxContextRunes]) + "…"
	}
	rt := w.rooms.get(id.RoomID(s.RoomID))
	w.loadRing(ctx, rt, s)
	rt.ring = append(rt.ring, m)
	if over := len(rt.ring) - keep; over > 0 {
		rt.ring = append(rt.ring[:0:0], rt.ring[over:]...)
	}
	if !w.storageOn(s) {
		return
	}
	if err := w.bridge.AddMessage(ctx, s.RoomID, m, keep); err != nil {
		logFrom(ctx, w.log).Error("could not store a room message", "error", err)
	}
}

// loadRing fills the in-memory window from the table once per process, so
// that context survives a restart where storage is allowed.
func (w *window) loadRing(ctx context.Context, rt *roomRuntime, s storage.BridgeRoom) {
	if rt.ringLoaded {
		return
	}
	rt.ringLoaded = true
	if !w.storageOn(s) {
		return
	}
	msgs, err := w.bridge.RecentMessages(ctx, s.RoomID, w.keep)
	if err != nil {
		logFrom(ctx, w.log).Error("could not load the room's recent messages", "error", err)
		return
	}
	rt.ring = msgs
}

// contextFor returns the window as context for an answer to `asking`: the
// room's recent messages before it, with sender names, none older than the
// retention limit, named as the room reads the names (labels).
// Where only is not nil, only the messages it holds are given (a thread's).
func (w *window) contextFor(ctx context.Context, s storage.BridgeRoom, asking id.EventID, labels core.Labels, only map[id.EventID]bool) []core.ContextMessage {
	rt := w.rooms.get(id.RoomID(s.RoomID))
	w.loadRing(ctx, rt, s)
	var cutoff time.Time
	if w.retentionDays > 0 {
		cutoff = w.now().AddDate(0, 0, -w.retentionDays)
	}
	out := make([]core.ContextMessage, 0, len(rt.ring))
	// A label reads the state store (a query): once per sender, not per line.
	senders := map[string]string{}
	for _, m := range rt.ring {
		if m.EventID == asking.String() || m.Time.Before(cutoff) || only != nil && !only[id.EventID(m.EventID)] {
			continue
		}
		name, ok := senders[m.Sender]
		if !ok {
			name = w.mx.labelIn(ctx, labels, id.RoomID(s.RoomID), id.UserID(m.Sender))
			senders[m.Sender] = name
		}
		out = append(out, core.ContextMessage{Sender: name, UserID: m.Sender, Text: m.Text, Timestamp: m.Time})
	}
	return out
}

// forgetContext empties the room's window in memory and in the table
// (!ada clear).
func (w *window) forgetContext(ctx context.Context, room id.RoomID) error {
	rt := w.rooms.get(room)
	rt.ring, rt.ringLoaded, rt.images = nil, true, nil
	return w.bridge.ClearMessages(ctx, room.String())
}

// dropFromContext removes the message from the room's in-memory window.
func (w *window) dropFromContext(room id.RoomID, target id.EventID) {
	w.dropWhere(room, func(m storage.BridgeMessage) bool { return m.EventID == target.String() })
}

// dropWhere removes the messages drop picks from the room's in-memory
// window and returns how many went.
func (w *window) dropWhere(room id.RoomID, drop func(storage.BridgeMessage) bool) int {
	rt := w.rooms.get(room)
	n := len(rt.ring)
	rt.ring = slices.DeleteFunc(rt.ring, drop)
	return n - len(rt.ring)
}
