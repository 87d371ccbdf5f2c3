package bot

import (
	"context"
	"sync"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// Messages sent while the bridge was down are backlog (isBacklog): read as
// context, never answered, because an answer much later may no longer fit
// and a restart must not flood rooms with old answers. A member writing in
// a direct chat expects an answer, though, so there the first such message
// gets a short notice that Ada was offline, once per chat and process. In
// group rooms the backlog stays silent: members there talk to each other
// as well, and questions caught by the stop itself got ❌ and a notice then
// (answer_line.go).

// offlineNotice answers the first message of a direct chat sent while the
// bridge was down.
const offlineNotice = "💤 I was offline when you wrote this, so I did not answer it (nor anything else you sent while I was away). Please ask again if you still need an answer."

// offlineNotices remembers the direct chats that got the notice in this
// process; its zero value is ready. Safe from any goroutine.
type offlineNotices struct {
	mu    sync.Mutex
	noted map[id.RoomID]bool
}

// first reports whether room has not had the notice yet, and records it.
func (n *offlineNotices) first(room id.RoomID) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.noted[room] {
		return false
	}
	if n.noted == nil {
		n.noted = make(map[id.RoomID]bool)
	}
	n.noted[room] = true
	return true
}

// noteOffline runs in the room's job for a message the catch-up /sync of a
// resumed bridge brought: sent while the bridge was down. In a direct chat,
// the first one that would have been answered gets the offline notice.
func (h *messageHandler) noteOffline(ctx context.Context, evt *event.Event) error {
	if !h.respondToDMs || !h.wouldAnswer(ctx, evt, false) || !h.mx.isDM(ctx, evt.RoomID) || !h.offline.first(evt.RoomID) {
		return nil
	}
	logFrom(ctx, h.log).Info("telling a direct chat that its message came while the bridge was offline")
	_, err := h.mx.sendNotice(ctx, evt, offlineNotice)
	return err
}
