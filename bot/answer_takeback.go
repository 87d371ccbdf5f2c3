package bot

import (
	"context"
	"sync"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/storage"
)

// A question redacted while its answer is being made gets nothing more
// (DECISIONS.md, "Rooms"): the model stops, and no further edit, message
// or ✅ is posted. What was posted already is linked to the question as it
// was sent (linkPosted), so the redaction's cascade takes it back, the
// reply, its edits and the reactions alike; an event linked after the
// cascade ran makes the redaction pending again (forget_pending.go). An
// edit of the question and its author's `!ada forget me` take the answer
// back at once instead: they wait until it is quiet, its model's run and
// its reactions sent in the background (🧠, ✅) alike (hold), so that
// nothing is linked after they looked.

// takeBack is the state of one answer in the making: whether its question
// was taken back, and how to stop its model.
type takeBack struct {
	asker  id.UserID // who asked: their edit or forget me takes it back too
	mu     sync.Mutex
	taken  bool
	cancel context.CancelFunc // the model's context, while it runs
	// ended is closed when the model started by generating has returned,
	// and with it the streamed posts, each linked to the question.
	ended chan struct{}
	// holding counts the sends under way outside the model's run (hold);
	// idle is closed when the last of them has linked what it posted.
	holding int
	idle    chan struct{}
	// over is set when the answer is done; its registration ends then,
	// once nothing holds it (unregister).
	over       bool
	unregister func()
}

// take marks the answer taken back and stops its model if it runs.
func (t *takeBack) take() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.taken = true
	if t.cancel != nil {
		t.cancel()
	}
}

// generating returns the context the model runs in: ended by take, at once
// if the answer was taken back already. Call stop when the model is done.
func (t *takeBack) generating(ctx context.Context) (gen context.Context, stop func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	gen, cancel := context.WithCancel(ctx)
	if t.taken {
		cancel()
	}
	t.cancel = cancel
	ended := make(chan struct{})
	t.ended = ended
	var once sync.Once
	return gen, func() {
		cancel()
		once.Do(func() { close(ended) })
	}
}

// hold starts a send of the answer outside its model's run (a reaction in
// the background), unless the answer was taken back: then ok is false and
// nothing is to be sent. Until release is called, quiet waits for it and
// the answer stays registered, so that a take-back finds it.
func (t *takeBack) hold() (release func(), ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.taken {
		return nil, false
	}
	if t.holding == 0 {
		t.idle = make(chan struct{})
	}
	t.holding++
	var once sync.Once
	return func() { once.Do(t.unhold) }, true
}

func (t *takeBack) unhold() {
	t.mu.Lock()
	t.holding--
	last := t.holding == 0
	if last {
		close(t.idle)
	}
	end := last && t.over
	t.mu.Unlock()
	if end {
		t.unregister()
	}
}

// finish ends the answer: its registration goes once nothing holds it.
func (t *takeBack) finish() {
	t.mu.Lock()
	t.over = true
	end := t.holding == 0
	t.mu.Unlock()
	if end {
		t.unregister()
	}
}

// quiet waits until nothing more of the answer is being posted, by its
// model's run (the stream included) or in the background (hold), or ctx
// ends: then every event of it is linked to the question, and taking them
// back takes them all.
func (t *takeBack) quiet(ctx context.Context) {
	t.mu.Lock()
	ended, idle := t.ended, t.idle
	t.mu.Unlock()
	for _, c := range []chan struct{}{ended, idle} {
		if c == nil {
			continue // the model never ran (it will not, once taken), or nothing was held
		}
		select {
		case <-c:
		case <-ctx.Done():
			return
		}
	}
}

// takenBack reports whether the question was taken back.
func (t *takeBack) takenBack() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.taken
}

// answersInFlight are the answers being made, by question, from the moment
// a question is accepted until its answer is posted or given up. Safe from
// any goroutine: the sync loop takes them back.
type answersInFlight struct {
	mu sync.Mutex
	m  map[redactionKey]*takeBack
}

// start registers the answer to evt; call the returned func when it ends.
// It stays registered while a send of it is held (takeBack.hold).
func (f *answersInFlight) start(evt *event.Event) (*takeBack, func()) {
	key, t := redactionKey{evt.RoomID, evt.ID}, &takeBack{asker: evt.Sender}
	t.unregister = func() {
		f.mu.Lock()
		if f.m[key] == t {
			delete(f.m, key)
		}
		f.mu.Unlock()
	}
	f.mu.Lock()
	if f.m == nil {
		f.m = make(map[redactionKey]*takeBack)
	}
	f.m[key] = t
	f.mu.Unlock()
	return t, t.finish
}

// takeBack stops the answer to the room's event, if one is being made: its
// question was redacted. It runs in the sync loop, as the redaction comes.
func (f *answersInFlight) takeBack(room id.RoomID, question id.EventID) bool {
	f.mu.Lock()
	t := f.m[redactionKey{room, question}]
	f.mu.Unlock()
	if t == nil {
		return false
	}
	t.take()
	return true
}

// takeBackAsked stops the answer to the room's event when who asked it:
// their edit of the question replaces it, so its old answer goes as for a
// redaction (messages_edit.go). It runs in the sync loop, as the edit
// comes, and returns the answer stopped, or nil.
func (f *answersInFlight) takeBackAsked(room id.RoomID, question id.EventID, who id.UserID) *takeBack {
	f.mu.Lock()
	t := f.m[redactionKey{room, question}]
	f.mu.Unlock()
	if t == nil || t.asker != who {
		return nil
	}
	t.take()
	return t
}

// takeBackFrom stops every answer to who's questions in the room (their
// `!ada forget me`) and waits until each is quiet, or ctx ends.
func (f *answersInFlight) takeBackFrom(ctx context.Context, room id.RoomID, who id.UserID) int {
	var taken []*takeBack
	f.mu.Lock()
	for key, t := range f.m {
		if key.room == room && t.asker == who {
			taken = append(taken, t)
		}
	}
	f.mu.Unlock()
	for _, t := range taken {
		t.take()
	}
	for _, t := range taken {
		t.quiet(ctx)
	}
	return len(taken)
}

// reactOn reacts on the question of p and links the reaction to it, so that
// taking the answer back takes the reaction too.
func (a *answerer) reactOn(ctx context.Context, p *pendingAnswer, key string) {
	if evID := a.mx.react(ctx, p.evt.RoomID, p.evt.ID, key); evID != "" {
		linkPosted(ctx, a.bridge, a.log, p.evt, storage.LinkReaction, []id.EventID{evID}, a.now())
	}
}

// failOn is matrix.fail (❌ and a notice) for p's question, both linked to it.
func (a *answerer) failOn(ctx context.Context, p *pendingAnswer, reason string) {
	a.linkFailure(ctx, p.evt)(a.mx.fail(ctx, p.evt, reason))
}

// linkFailure links a failure's ❌ and notice to the question they mark.
func (a *answerer) linkFailure(ctx context.Context, evt *event.Event) func(reaction, notice id.EventID) {
	return func(reaction, notice id.EventID) {
		linkPosted(ctx, a.bridge, a.log, evt, storage.LinkReaction, []id.EventID{reaction}, a.now())
		linkPosted(ctx, a.bridge, a.log, evt, storage.LinkReply, []id.EventID{notice}, a.now())
	}
}
