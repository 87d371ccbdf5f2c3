package core

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"sync"
	"testing"
)

// recordingObserver keeps what a jobQueue told it.
type recordingObserver struct {
	mu     sync.Mutex
	queued map[string]int
	ended  map[string]int // name + " " + result
}

func (o *recordingObserver) JobQueued(name string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.queued[name]++
}

func (o *recordingObserver) JobDone(name string, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	result := "done"
	switch {
	case errors.Is(err, ErrJobDropped):
		result = "dropped"
	case err != nil:
		result = "failed"
	}
	o.ended[name+" "+result]++
}

// TestJobObserverSeesEveryJobEnd: each queued job ends exactly once for the
// observer: done, failed (an error or a panic), or dropped (cut short or
// never run at close).
func TestJobObserverSeesEveryJobEnd(t *testing.T) {
	obs := &recordingObserver{queued: map[string]int{}, ended: map[string]int{}}
	q := newJobQueue(1, slog.New(slog.DiscardHandler))
	q.obs = obs
	ctx := context.Background()
	q.enqueue(ctx, "conv-a", "ok", func(context.Context) error { return nil })
	q.enqueue(ctx, "conv-a", "fails", func(context.Context) error { return errors.New("no") })
	q.submit(ctx, "conv-a", "panics", func(context.Context) { panic("boom") })
	q.wait()
	started := make(chan struct{})
	q.enqueue(ctx, "conv-b", "running", func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	})
	q.enqueue(ctx, "conv-b", "queued", func(context.Context) error { return nil })
	<-started
	q.close()
	want := map[string]int{"ok done": 1, "fails failed": 1, "panics failed": 1, "running dropped": 1, "queued dropped": 1}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.ended) != len(want) {
		t.Fatalf("ended %v, want %v", obs.ended, want)
	}
	for k, n := range want {
		if obs.ended[k] != n {
			t.Errorf("ended %v, want %v", obs.ended, want)
		}
	}
	for _, name := range []string{"ok", "fails", "panics", "running", "queued"} {
		if obs.queued[name] != 1 {
			t.Errorf("queued %v", obs.queued)
		}
	}
}

// TestShutdownLetsQueuedJobsFinish: at shutdown the running and queued jobs
// finish while the deadline lasts, and a job submitted meanwhile is refused;
// at the deadline what still runs is cancelled.
func TestShutdownLetsQueuedJobsFinish(t *testing.T) {
	obs := &recordingObserver{queued: map[string]int{}, ended: map[string]int{}}
	q := newJobQueue(1, slog.New(slog.DiscardHandler))
	q.obs = obs
	ctx := context.Background()
	release, started := make(chan struct{}), make(chan struct{})
	q.enqueue(ctx, "conv-a", "running", func(context.Context) error { close(started); <-release; return nil })
	q.enqueue(ctx, "conv-a", "queued", func(context.Context) error { return nil })
	<-started
	q.refuseNew() // finish's first step, taken here to submit in between
	q.enqueue(ctx, "conv-b", "late", func(context.Context) error { return nil })
	finished := make(chan struct{})
	go func() { q.finish(ctx); close(finished) }()
	close(release)
	<-finished
	obs.mu.Lock()
	got := maps.Clone(obs.ended)
	obs.mu.Unlock()
	if want := map[string]int{"running done": 1, "queued done": 1, "late dropped": 1}; !maps.Equal(got, want) {
		t.Errorf("ended %v, want %v", got, want)
	}

	q2 := newJobQueue(1, slog.New(slog.DiscardHandler))
	cancelled := make(chan error, 1)
	running := make(chan struct{})
	q2.enqueue(ctx, "conv-c", "stuck", func(ctx context.Context) error {
		close(running)
		<-ctx.Done()
		cancelled <- ctx.Err()
		return ctx.Err()
	})
	<-running
	deadline, cancel := context.WithCancel(ctx)
	cancel() // the grace period is over
	q2.finish(deadline)
	if err := <-cancelled; err == nil {
		t.Error("a job still running at the deadline was not cancelled")
	}
}
