// Package roomqueue runs a Matrix bridge's work in order per room, beside
// the sync loop: each room has a bounded queue and a goroutine while it has
// work; a panic in a job is recovered and reported, never the end of the sync.
// It knows nothing of what the jobs do.
package roomqueue

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
)

// maxPendingPerRoom bounds one room's backlog; a flood beyond it is refused
// rather than growing memory without limit. A refused job is never dropped
// silently: it is logged, and its OnDrop tells the room (❌ and "busy").
const maxPendingPerRoom = 256

// maxDropReports bounds the refused jobs of one room waiting for their
// OnDrop; past it a flood is only logged, so that reporting it cannot grow
// memory either.
const maxDropReports = 32

// Job is one unit of work for a room, run in the room's order.
type Job struct {
	Name string
	// Ctx carries the event's logger; Run gets it, cancelled when the queue's
	// context ends.
	Ctx context.Context
	Run func(ctx context.Context) error
	// OnPanic, if set, reports a recovered panic to the room (❌).
	OnPanic func(ctx context.Context)
	// OnDrop, if set, reports that the room's queue was full and the job
	// will not run. It runs at once, beside the room's jobs rather than in
	// their order, so it must only touch what is safe from any goroutine.
	OnDrop func(ctx context.Context)
	// OnStop, if set, reports that the queue stopped before the job could
	// run. It gets a context that outlives the queue's by StopReportTime,
	// enough to tell the room (❌ and a notice) within the shutdown grace.
	OnStop func(ctx context.Context)
}

// StopReportTime bounds one OnStop: the homeserver may be gone too.
const StopReportTime = 5 * time.Second

// Queue runs jobs in order per room, with at most `parallel` jobs
// running at once across all rooms. The sync loop only enqueues, so a slow answer in
// one room never stalls the others or the sync. Each room's goroutine exits
// when its queue is empty, and every goroutine ends with the queue's context.
type Queue struct {
	ctx  context.Context
	log  *slog.Logger
	sem  chan struct{}
	work *Work

	mu     sync.Mutex
	lines  map[id.RoomID]*roomLine
	closed bool
	wg     sync.WaitGroup
}

type roomLine struct {
	pending []queued
	// urgent counts the jobs at the head of pending put there by
	// EnqueueUrgent, so that they keep their own order.
	urgent int
	// dropped are refused jobs waiting for their OnDrop; reporting is set
	// while a goroutine runs them.
	dropped   []queued
	reporting bool
}

// queued is a job with its context filled in and its logger taken from it
// once, when it was enqueued.
type queued struct {
	Job
	log *slog.Logger
}

// New makes a queue whose jobs end with ctx, with at most parallel of them
// running at once; log is for jobs without a logger of their own. Its jobs
// and the work they spawn are counted in work, if not nil.
func New(ctx context.Context, parallel int, log *slog.Logger, work *Work) *Queue {
	return &Queue{ctx: ctx, log: log, sem: make(chan struct{}, parallel), work: work, lines: make(map[id.RoomID]*roomLine)}
}

// Enqueue adds j to the room's queue. It reports false when the queue is
// stopping or the room's queue is full.
func (d *Queue) Enqueue(room id.RoomID, j Job) bool {
	return d.add(room, j, func(line *roomLine, q queued) bool {
		if len(line.pending) >= maxPendingPerRoom {
			q.log.Warn("room queue full; event dropped", "job", j.Name, "room_id", room.String())
			d.reportDrop(line, q)
			return false
		}
		line.pending = append(line.pending, q)
		return true
	})
}

// EnqueueUrgent puts j before the room's other waiting jobs (after the
// urgent ones already waiting), beyond the room's bound: a redaction must
// neither wait behind answers nor be refused by a full queue. The caller
// bounds such jobs itself (one per redaction recorded). It reports false
// only when the queue is stopping.
func (d *Queue) EnqueueUrgent(room id.RoomID, j Job) bool {
	return d.add(room, j, func(line *roomLine, q queued) bool {
		line.pending = append(line.pending, queued{})
		copy(line.pending[line.urgent+1:], line.pending[line.urgent:])
		line.pending[line.urgent] = q
		line.urgent++
		return true
	})
}

// add puts j in the room's line with put, under the lock, and starts the
// room's goroutine if none runs.
func (d *Queue) add(room id.RoomID, j Job, put func(*roomLine, queued) bool) bool {
	if j.Ctx == nil {
		j.Ctx = d.ctx
	}
	q := queued{Job: j, log: core.LoggerFrom(j.Ctx, d.log)}
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
	if !put(line, q) { // only a full line refuses, and a full line runs
		return false
	}
	d.work.add()
	if !running {
		d.wg.Add(1)
		go d.drain(room, line)
	}
	return true
}

// drain runs the room's jobs until its queue is empty, then forgets the room.
func (d *Queue) drain(room id.RoomID, line *roomLine) {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		if len(line.pending) == 0 {
			delete(d.lines, room)
			d.mu.Unlock()
			return
		}
		j := line.pending[0]
		line.pending[0] = queued{}
		line.pending = line.pending[1:]
		line.urgent = max(line.urgent-1, 0)
		d.mu.Unlock()
		d.runOne(j)
		d.work.done()
	}
}

// Spawn runs fn in a goroutine that Close waits for: work that a running
// job hands on, to finish after the job returns. Only a running job may call
// it (its own count keeps Close from returning first).
func (d *Queue) Spawn(fn func()) {
	d.wg.Add(1)
	d.work.add()
	go func() {
		defer d.wg.Done()
		defer d.work.done()
		fn()
	}()
}

// reportDrop queues j's OnDrop and starts the room's reporter if none runs.
// The caller holds d.mu.
func (d *Queue) reportDrop(line *roomLine, j queued) {
	if j.OnDrop == nil || len(line.dropped) >= maxDropReports {
		return
	}
	line.dropped = append(line.dropped, j)
	if !line.reporting {
		line.reporting = true
		d.wg.Add(1)
		go d.reportDrops(line)
	}
}

// reportDrops runs the OnDrop of the room's refused jobs, one at a time, until
// none is left. It does not wait for the room's queue: telling the sender
// that the bot is busy only helps while it still is.
func (d *Queue) reportDrops(line *roomLine) {
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
		d.safely(j.Ctx, j.log, j.OnDrop)
	}
}

// runOne waits for a worker slot and runs j, recovering a panic so that one
// bad event can never take down the room's queue, let alone the sync loop.
func (d *Queue) runOne(j queued) {
	select {
	case d.sem <- struct{}{}:
	case <-d.ctx.Done():
		d.reportStop(j)
		return
	}
	defer func() { <-d.sem }()
	ctx, cancel := context.WithCancel(j.Ctx)
	defer cancel()
	stop := context.AfterFunc(d.ctx, cancel) // the job's context ends with the queue's
	defer stop()
	log := j.log
	defer func() {
		if p := recover(); p != nil {
			log.Error("panic in bot handler", "job", j.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if j.OnPanic != nil {
				d.safely(ctx, log, j.OnPanic)
			}
		}
	}()
	if d.ctx.Err() != nil {
		d.reportStop(j)
		return
	}
	if ctx.Err() != nil {
		return
	}
	if err := j.Run(ctx); err != nil && d.ctx.Err() == nil {
		log.Error("bot handler failed", "job", j.Name, "error", err)
	}
}

// reportStop runs j's OnStop, if any, with a context of its own: the
// queue's has ended.
func (d *Queue) reportStop(j queued) {
	if j.OnStop == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(j.Ctx), StopReportTime)
	defer cancel()
	d.safely(ctx, j.log, j.OnStop)
}

// Pending is the number of the room's jobs queued or running: 0 when it
// has none. Safe from any goroutine.
func (d *Queue) Pending(room id.RoomID) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	line, ok := d.lines[room]
	if !ok {
		return 0
	}
	return len(line.pending) + 1 // the one running
}

// safely runs a failure report, which must not panic in turn.
func (d *Queue) safely(ctx context.Context, log *slog.Logger, fn func(context.Context)) {
	defer func() {
		if p := recover(); p != nil {
			log.Error("panic while reporting a failure", "panic", fmt.Sprint(p))
		}
	}()
	fn(ctx)
}

// Close stops accepting jobs and waits for every room goroutine. Pending jobs
// are skipped once the queue's context has ended.
func (d *Queue) Close() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.wg.Wait()
}
