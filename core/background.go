package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
)

// maxQueuedJobs bounds the background work waiting at once; past it new
// jobs are dropped with a warning rather than piling up without end.
const maxQueuedJobs = 1000

// jobQueue runs background jobs (summaries, memory extractions) on a fixed
// number of workers. Jobs with the same key (a conversation) run one at a
// time, in the order they were submitted, so two summaries of one
// conversation never overlap and extractions see each other's memories.
type jobQueue struct {
	log    *slog.Logger
	obs    JobObserver
	ctx    context.Context
	cancel context.CancelFunc
	slots  chan struct{}
	wg     sync.WaitGroup

	mu      sync.Mutex
	pending map[string][]func(context.Context)
	queued  int
	// closing refuses new jobs while the queued ones finish (finish).
	closing bool
}

func newJobQueue(workers int, log *slog.Logger) *jobQueue {
	ctx, cancel := context.WithCancel(context.Background())
	return &jobQueue{log: log, obs: noJobObserver{}, ctx: ctx, cancel: cancel, slots: make(chan struct{}, workers),
		pending: map[string][]func(context.Context){}}
}

// submit queues job, which cannot fail, under key (enqueue).
func (q *jobQueue) submit(origin context.Context, key, name string, job func(context.Context)) {
	q.enqueue(origin, key, name, func(ctx context.Context) error { job(ctx); return nil })
}

// enqueue queues job under key. It never blocks. The job runs with the
// logger of origin (the request that caused it: its request id, room or
// event), but not with its cancellation: it outlives the request. Its
// error goes to the observer (metrics); the job logs it itself.
func (q *jobQueue) enqueue(origin context.Context, key, name string, job func(context.Context) error) {
	log := LoggerFrom(origin, q.log)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ctx.Err() != nil {
		return
	}
	if q.closing || q.queued >= maxQueuedJobs {
		if q.closing {
			log.Info("shutting down; background job not started", "job", name, "conversation_id", key)
		} else {
			log.Warn("background queue full; job dropped", "job", name, "conversation_id", key)
		}
		q.obs.JobQueued(name)
		q.obs.JobDone(name, ErrJobDropped)
		return
	}
	// wrapped runs the job, or with ctx ended reports it dropped.
	wrapped := func(ctx context.Context) {
		if ctx.Err() != nil {
			q.obs.JobDone(name, ErrJobDropped)
			return
		}
		err := errors.New("job panicked")
		defer func() {
			if p := recover(); p != nil {
				log.Error("background job panicked", "job", name, "conversation_id", key, "panic", fmt.Sprint(p))
			}
			q.obs.JobDone(name, err)
		}()
		err = job(WithLogger(ctx, log))
		if err != nil && q.ctx.Err() != nil {
			err = ErrJobDropped // cut short by close, not failed
		}
	}
	q.obs.JobQueued(name)
	q.queued++
	q.pending[key] = append(q.pending[key], wrapped)
	if len(q.pending[key]) == 1 {
		q.wg.Add(1)
		go q.drain(key)
	}
}

// drain runs the jobs of key one after another, each in a worker slot.
func (q *jobQueue) drain(key string) {
	defer q.wg.Done()
	for {
		q.mu.Lock()
		job := q.pending[key][0]
		q.mu.Unlock()
		select {
		case q.slots <- struct{}{}:
			job(q.ctx)
			<-q.slots
		case <-q.ctx.Done():
			job(q.ctx) // reports it dropped
		}
		q.mu.Lock()
		q.queued--
		rest := q.pending[key][1:]
		if len(rest) == 0 || q.ctx.Err() != nil {
			for _, dropped := range rest {
				dropped(q.ctx) // reports it dropped
			}
			q.queued -= len(rest)
			delete(q.pending, key)
			q.mu.Unlock()
			return
		}
		q.pending[key] = rest
		q.mu.Unlock()
	}
}

// wait blocks until every job submitted so far has run.
func (q *jobQueue) wait() { q.wg.Wait() }

// finish refuses new jobs and lets the running and queued ones end until
// ctx does; then it closes the queue, cancelling what is left.
func (q *jobQueue) finish(ctx context.Context) {
	q.refuseNew()
	done := make(chan struct{})
	go func() { q.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		q.log.Warn("shutting down: background jobs still running are cancelled")
	}
	q.close()
}

// refuseNew drops the jobs submitted from now on.
func (q *jobQueue) refuseNew() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closing = true
}

// close cancels running jobs, drops queued ones and waits.
func (q *jobQueue) close() {
	q.mu.Lock()
	q.cancel()
	q.mu.Unlock()
	q.wg.Wait()
}
