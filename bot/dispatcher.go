package bot

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	"maunium.net/go/mautrix/id"
)

// maxPendingPerRoom bounds one room's backlog; a flood beyond it is refused
// rather than growing memory without limit. A refused job is never dropped
// silently: it is logged, and its onDrop tells the room (❌ and "busy").
const maxPendingPerRoom = 256

// maxDropReports bounds the refused jobs of one room waiting for their
// onDrop; past it a flood is only logged, so that reporting it cannot grow
// memory either.
const maxDropReports = 32

// maxParallelJobs bounds the room jobs running at once. Jobs mostly wait on
// the homeserver; the expensive part, making an answer, has its own, smaller
// bound (BOT_WORKERS), so reactions and commands in other rooms are not
// stuck behind slow answers.
const maxParallelJobs = 64

// job is one unit of work for a room, run in the room's order.
type job struct {
	name string
	// ctx carries the event's logger; run gets it, cancelled when the bot stops.
	ctx context.Context
	run func(ctx context.Context) error
	// onPanic, if set, reports a recovered panic to the room (❌).
	onPanic func(ctx context.Context)
	// onDrop, if set, reports that the room's queue was full and the job
	// will not run. It runs at once, beside the room's jobs rather than in
	// their order, so it must only touch what is safe from any goroutine.
	onDrop func(ctx context.Context)
}

// dispatcher runs jobs in order per room, with at most `parallel` jobs
// running at once across all rooms. The sync loop only enqueues, so a slow answer in
// one room never stalls the others or the sync. Each room's goroutine exits
// when its queue is empty, and every goroutine ends with the bot's context.
type dispatcher struct {
	ctx context.Context
	log *slog.Logger
	sem chan struct{}

	mu     sync.Mutex
	lines  map[id.RoomID]*roomLine
	closed bool
	wg     sync.WaitGroup
}

type roomLine struct {
	pending []job
	// dropped are refused jobs waiting for their onDrop; reporting is set
	// while a goroutine runs them.
	dropped   []job
	reporting bool
}

func newDispatcher(ctx context.Context, parallel int, log *slog.Logger) *dispatcher {
	return &dispatcher{ctx: ctx, log: log, sem: make(chan struct{}, parallel), lines: make(map[id.RoomID]*roomLine)}
}

// enqueue adds j to the room's queue. It reports false when the bot is
// stopping or the room's queue is full.
func (d *dispatcher) enqueue(room id.RoomID, j job) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.ctx.Err() != nil {
		return false
	}
	line, running := d.lines[room]
	if !running {
		line = &roomLine{}
		d.lines[room] = line
	}
	if len(line.pending) >= maxPendingPerRoom {
		logFrom(j.ctx, d.log).Warn("room queue full; event dropped", "job", j.name, "room_id", room.String())
		d.reportDrop(line, j)
		return false
	}
	line.pending = append(line.pending, j)
	if !running {
		d.wg.Add(1)
		go d.drain(room, line)
	}
	return true
}

// drain runs the room's jobs until its queue is empty, then forgets the room.
func (d *dispatcher) drain(room id.RoomID, line *roomLine) {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		if len(line.pending) == 0 {
			delete(d.lines, room)
			d.mu.Unlock()
			return
		}
		j := line.pending[0]
		line.pending[0] = job{}
		line.pending = line.pending[1:]
		d.mu.Unlock()
		d.runOne(j)
	}
}

// spawn runs fn in a goroutine that close waits for: work that a running
// job hands on, to finish after the job returns. Only a running job may call
// it (its own count keeps close from returning first).
func (d *dispatcher) spawn(fn func()) {
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		fn()
	}()
}

// reportDrop queues j's onDrop and starts the room's reporter if none runs.
// The caller holds d.mu.
func (d *dispatcher) reportDrop(line *roomLine, j job) {
	if j.onDrop == nil || len(line.dropped) >= maxDropReports {
		return
	}
	line.dropped = append(line.dropped, j)
	if !line.reporting {
		line.reporting = true
		d.wg.Add(1)
		go d.reportDrops(line)
	}
}

// reportDrops runs the onDrop of the room's refused jobs, one at a time, until
// none is left. It does not wait for the room's queue: telling the sender
// that the bot is busy only helps while it still is.
func (d *dispatcher) reportDrops(line *roomLine) {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		if len(line.dropped) == 0 || d.ctx.Err() != nil {
			line.dropped, line.reporting = nil, false
			d.mu.Unlock()
			return
		}
		j := line.dropped[0]
		line.dropped = line.dropped[1:]
		d.mu.Unlock()
		ctx := j.ctx
		if ctx == nil {
			ctx = d.ctx
		}
		d.safely(ctx, logFrom(ctx, d.log), j.onDrop)
	}
}

// runOne waits for a worker slot and runs j, recovering a panic so that one
// bad event can never take down the room's queue, let alone the sync loop.
func (d *dispatcher) runOne(j job) {
	select {
	case d.sem <- struct{}{}:
	case <-d.ctx.Done():
		return
	}
	defer func() { <-d.sem }()
	ctx := j.ctx
	if ctx == nil {
		ctx = d.ctx
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(d.ctx, cancel) // the job's context ends with the bot
	defer stop()
	log := logFrom(ctx, d.log)
	defer func() {
		if p := recover(); p != nil {
			log.Error("panic in bot handler", "job", j.name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if j.onPanic != nil {
				d.safely(ctx, log, j.onPanic)
			}
		}
	}()
	if ctx.Err() != nil {
		return
	}
	if err := j.run(ctx); err != nil && d.ctx.Err() == nil {
		log.Error("bot handler failed", "job", j.name, "error", err)
	}
}

// safely runs a failure report, which must not panic in turn.
func (d *dispatcher) safely(ctx context.Context, log *slog.Logger, fn func(context.Context)) {
	defer func() {
		if p := recover(); p != nil {
			log.Error("panic while reporting a failure", "panic", fmt.Sprint(p))
		}
	}()
	fn(ctx)
}

// close stops accepting jobs and waits for every room goroutine. Pending jobs
// are skipped once the bot's context has ended.
func (d *dispatcher) close() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.wg.Wait()
}
