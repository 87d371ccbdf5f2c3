package bot

import (
	"context"
	"sync"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/roomqueue"
	"github.com/ada-chat/ada/storage"
)

// A redaction is never lost (issue 26). It is recorded in the bridge's
// state (bridge_redactions) as it is received, in the sync loop, then
// applied by an urgent job of the room's queue: before the room's waiting
// jobs and beyond its bound, so that it neither waits behind answers nor is
// refused by a full queue, while still running one at a time with the
// room's other jobs (the room's context and `!ada why` are theirs). A
// failure is retried with backoff; what a stop or a crash left pending is
// applied at the next start. The message a redaction overtook is not
// handled (skipRedacted), and what is linked to it later (an answer that
// was being made) makes its redaction pending again (storage.AddLinks),
// to be applied by the next look at the table.

// redactionPoll is how often the pending redactions are looked at, for
// those made pending again by a link and those due for a retry: soon
// enough that what a redacted question's answer stored goes within
// seconds of it.
const redactionPoll = 2 * time.Second

// Backoff of a failed redaction: doubled each time, up to the longest.
const (
	firstRedactionRetry = time.Second
	maxRedactionRetry   = 5 * time.Minute
)

// maxRedactionAttempts bounds the applications of a redaction that keeps
// failing (about 19 minutes with the backoff above): then it is abandoned,
// logged at ERROR, counted, and left pending but never due in
// bridge_redactions (README, "Redactions cascade").
const maxRedactionAttempts = 12

// maxDueRedactions bounds the redactions scheduled by one look at the
// table; the rest come with the next.
const maxDueRedactions = 100

// redactionKey names one redacted event.
type redactionKey struct {
	room  id.RoomID
	event id.EventID
}

// pendingRedactions are the redactions scheduled in the room queue and not
// finished yet, so that each is scheduled once at a time.
type pendingRedactions struct {
	queue *roomqueue.Queue // set by Run
	mu    sync.Mutex
	busy  map[redactionKey]bool
}

// received records a redaction as the sync loop receives it, then
// schedules it. A record that fails is still applied now, only not again
// after a crash.
func (f *forgetting) received(ctx context.Context, room id.RoomID, target id.EventID) {
	if err := f.bridge.RecordRedaction(ctx, room.String(), target.String(), f.now()); err != nil {
		logFrom(ctx, f.log).Error("could not record a redaction; applying it without a record", "error", err)
	}
	f.schedule(ctx, room, target, storage.RedactionEvent, 0)
}

// schedule queues the application of a redaction unless it is already
// queued. When the queue is stopping, the record stays pending for the next
// start.
func (f *forgetting) schedule(ctx context.Context, room id.RoomID, target id.EventID, kind string, attempts int) {
	key := redactionKey{room, target}
	p := &f.pending
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.busy[key] {
		return
	}
	ok := p.queue.EnqueueUrgent(room, roomqueue.Job{Name: "redaction", Ctx: ctx, Run: func(ctx context.Context) error {
		defer f.finished(key)
		return f.apply(ctx, room, target, kind, attempts)
	}})
	if ok {
		if p.busy == nil {
			p.busy = make(map[redactionKey]bool)
		}
		p.busy[key] = true
	}
}

func (f *forgetting) finished(key redactionKey) {
	f.pending.mu.Lock()
	delete(f.pending.busy, key)
	f.pending.mu.Unlock()
}

// apply runs the redaction's cascade and records the outcome: done, or due
// again after a backoff. A stop leaves it pending as it is.
func (f *forgetting) apply(ctx context.Context, room id.RoomID, target id.EventID, kind string, attempts int) error {
	var err error
	if kind == storage.RedactionPurge {
		err = f.purgeRoom(ctx, room)
	} else {
		err = f.handleRedaction(ctx, room, target)
	}
	if ctx.Err() != nil {
		return err
	}
	// The outcome is written even when the cascade's context ran out.
	wctx := context.WithoutCancel(ctx)
	if err == nil {
		if err := f.bridge.RedactionApplied(wctx, room.String(), target.String(), f.now()); err != nil {
			logFrom(ctx, f.log).Error("redaction applied but not marked done; it will be applied again", "error", err)
		}
		return nil
	}
	if attempts+1 >= maxRedactionAttempts {
		f.observe.BotRedactionAbandoned()
		logFrom(ctx, f.log).Error("redaction abandoned after repeated failures; what the message caused may remain",
			"error", err, "attempts", attempts+1)
		if err := f.bridge.RedactionAbandoned(wctx, room.String(), target.String()); err != nil {
			logFrom(ctx, f.log).Error("could not mark a redaction abandoned", "error", err)
		}
		return nil
	}
	delay := min(firstRedactionRetry<<min(attempts, 20), maxRedactionRetry)
	logFrom(ctx, f.log).Warn("redaction failed; retrying", "error", err, "attempts", attempts+1, "retry_in", delay.String())
	if err := f.bridge.RedactionFailed(wctx, room.String(), target.String(), f.now().Add(delay)); err != nil {
		logFrom(ctx, f.log).Error("could not put off a failed redaction", "error", err)
	}
	return nil // logged here, with the retry
}

// pendingLoop applies what is due in bridge_redactions: at start what a
// stop or a crash left, then every redactionPoll the retries and the
// redactions made pending again, until ctx ends.
func (f *forgetting) pendingLoop(ctx context.Context) {
	t := time.NewTicker(redactionPoll)
	defer t.Stop()
	for {
		due, err := f.bridge.DueRedactions(ctx, f.now(), maxDueRedactions)
		if err != nil && ctx.Err() == nil {
			f.log.Error("could not read the pending redactions", "error", err)
		}
		for _, r := range due {
			room, target := id.RoomID(r.RoomID), id.EventID(r.EventID)
			log := f.log.With("room_id", r.RoomID, "redacts", r.EventID)
			f.schedule(withLogger(ctx, log), room, target, r.Kind, r.Attempts)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// skipRedacted reports whether a message was redacted before its job ran
// (the redaction overtook it): it is then neither stored nor answered.
func (f *forgetting) skipRedacted(ctx context.Context, room id.RoomID, evt id.EventID) bool {
	redacted, err := f.bridge.Redacted(ctx, room.String(), evt.String())
	if err != nil {
		logFrom(ctx, f.log).Error("could not check whether a message was redacted", "error", err)
	}
	if redacted {
		logFrom(ctx, f.log).Info("message redacted before it was handled; skipped")
	}
	return redacted
}
