package bot

import (
	"encoding/json"
	"sync"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// Every event from before Ada's own latest join of a room is context at
// most, never answered or run as a command (DECISIONS.md, "Rooms"): on a
// first invite the room's earlier messages were not meant for her, and
// after a kick and a re-invite the room's visible history (old questions,
// `!ada forget all`, `!ada set`…) must not be replayed. The /sync that
// brings a join hands over the room's recent timeline with it; the events
// in it before her join event are marked here, in the order the homeserver
// gives (not by clocks), and her join event's origin_server_ts also marks
// anything older that comes later by another way (a late decryption, a
// redelivery). Kept in memory only: after a restart everything sent before
// the start is backlog anyway (isBacklog).

// roomJoins holds, per room, Ada's latest join and the events that came
// before it in the join's timeline. Safe from any goroutine: the sync loop
// writes, the crypto helper's goroutine may read.
type roomJoins struct {
	mu sync.Mutex
	// at is the origin_server_ts of Ada's latest join of the room.
	at map[id.RoomID]int64
	// before are the events of the room's join timeline before the join;
	// replaced at the next join, so bounded by the timeline's length.
	before map[id.RoomID]map[id.EventID]bool
}

// observe reads a /sync response before its events are dispatched and
// records Ada's joins in it (a join, not a profile change).
func (j *roomJoins) observe(res *mautrix.RespSync, self id.UserID) {
	for room, data := range res.Rooms.Join {
		events := data.Timeline.Events
		last := -1
		for i, evt := range events {
			if isOwnJoin(evt, self) {
				last = i
			}
		}
		if last < 0 {
			continue
		}
		before := make(map[id.EventID]bool, last)
		for _, evt := range events[:last] {
			before[evt.ID] = true
		}
		j.mu.Lock()
		if j.at == nil {
			j.at, j.before = make(map[id.RoomID]int64), make(map[id.RoomID]map[id.EventID]bool)
		}
		j.at[room], j.before[room] = events[last].Timestamp, before
		j.mu.Unlock()
	}
}

// beforeJoin reports whether evt came before Ada's latest join of its room.
func (j *roomJoins) beforeJoin(evt *event.Event) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.before[evt.RoomID][evt.ID] {
		return true
	}
	at, ok := j.at[evt.RoomID]
	return ok && evt.Timestamp < at
}

// isOwnJoin reports whether a raw timeline event (not parsed yet: the sync
// listeners run first) is Ada joining: her m.room.member with membership
// join, unless she was joined already (a display name or avatar change).
func isOwnJoin(evt *event.Event, self id.UserID) bool {
	if evt.Type.Type != event.StateMember.Type || evt.StateKey == nil || *evt.StateKey != self.String() {
		return false
	}
	var now struct {
		Membership event.Membership `json:"membership"`
	}
	if json.Unmarshal(evt.Content.VeryRaw, &now) != nil || now.Membership != event.MembershipJoin {
		return false
	}
	prev := evt.Unsigned.PrevContent
	if prev == nil || len(prev.VeryRaw) == 0 {
		return true
	}
	var was struct {
		Membership event.Membership `json:"membership"`
	}
	return json.Unmarshal(prev.VeryRaw, &was) != nil || was.Membership != event.MembershipJoin
}
