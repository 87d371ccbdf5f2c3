package bot

import (
	"context"
	"sync"

	"maunium.net/go/mautrix/id"
)

// roomTails are the ends of answers still being sent after their job has
// returned (✅ and the end of the typing notice; see afterAnswer), newest
// per room. A room's next typing notice waits for the previous end, so that
// a late "not typing" can never cancel it. Safe from any goroutine.
type roomTails struct {
	mu sync.Mutex
	m  map[id.RoomID]chan struct{}
}

// latest is closed when the room's newest tail has finished; nil if none runs.
func (t *roomTails) latest(room id.RoomID) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.m[room]; ok {
		return c
	}
	return nil
}

// start makes a new tail the room's newest; call done when it has finished.
func (t *roomTails) start(room id.RoomID) (done func()) {
	c := make(chan struct{})
	t.mu.Lock()
	if t.m == nil {
		t.m = make(map[id.RoomID]chan struct{})
	}
	t.m[room] = c
	t.mu.Unlock()
	return func() {
		close(c)
		t.mu.Lock()
		if t.m[room] == c {
			delete(t.m, room)
		}
		t.mu.Unlock()
	}
}

// afterAnswer runs fn, the end of an answer, once the room's job has handed
// it over: in a goroutine the dispatcher waits for when the bot stops, with
// a context that ends with the bot rather than with the job. The room's
// next job can start at once; members see its 🧠 without waiting for the
// previous answer's ✅.
func (a *answerer) afterAnswer(ctx context.Context, room id.RoomID, fn func(ctx context.Context)) {
	done := a.tails.start(room)
	tctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(a.mx.runCtx, cancel)
	a.disp.spawn(func() {
		defer done()
		defer cancel()
		defer stop()
		defer a.recoverBackground(tctx, "end of answer")
		fn(tctx)
	})
}
