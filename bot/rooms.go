package bot

import (
	"sync"
	"sync/atomic"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/storage"
)

// roomRuntime is what the bot keeps in memory about a room. Its fields are
// only touched by the room's own jobs, which run one at a time (a
// reminder is posted in one too), except prepared, which sends from
// elsewhere (a link in a new direct chat) read and set too.
type roomRuntime struct {
	// prepared: the room's state and members are known in the state store
	// (fetched once in this process, or the room was created by Ada), so
	// its encryption and members are known before a send.
	prepared atomic.Bool
	// ring holds the newest room messages, oldest first (context for the
	// model). In privacy mode it is the only copy, and it is never persisted.
	ring       []storage.BridgeMessage
	ringLoaded bool
	// flaggedUndecryptable: the "could not decrypt" notice was posted.
	flaggedUndecryptable bool
	// images is each member's latest image (event id only; media.go).
	images map[id.UserID]recentImage
	// listed holds, per member, the memory ids of the last `!ada memories`
	// that member saw, in the numbers shown, for `!ada forget <number>`:
	// another member's listing never renumbers them.
	listed map[id.UserID][]string
	// forgotten holds the ids of memories `!ada forget` deleted here, so
	// that forgetting one again by its short id says it is already gone.
	forgotten map[string]bool
	// lastAnswer is what the room's last answer used (`!ada why`).
	lastAnswer *lastAnswer
}

// roomStates maps rooms to their runtime state.
type roomStates struct {
	mu sync.Mutex
	m  map[id.RoomID]*roomRuntime
}

func (r *roomStates) get(room id.RoomID) *roomRuntime {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt := r.m[room]
	if rt == nil {
		rt = &roomRuntime{}
		r.m[room] = rt
	}
	return rt
}

// held is the room's state if it is held, without making one: a job
// queued for every room held before one was purged finds it gone.
func (r *roomStates) held(room id.RoomID) (*roomRuntime, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rt, ok := r.m[room]
	return rt, ok
}

func (r *roomStates) forget(room id.RoomID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, room)
}
