package chroma

import (
	"context"
	"sync"
	"time"
)

// background runs the work a store does behind its callers (refreshStale)
// until the store is closed: Close cancels what runs and waits for it.
type background struct {
	mu      sync.Mutex
	stopped bool
	ctx     context.Context
	cancel  context.CancelFunc
	running sync.WaitGroup
}

// behindFor bounds one piece of background work (a refresh's counts).
const behindFor = time.Minute

func newBackground() *background {
	ctx, cancel := context.WithCancel(context.Background())
	return &background{ctx: ctx, cancel: cancel}
}

// run starts f unless the store is closed, and reports whether it did.
func (b *background) run(f func(ctx context.Context)) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return false
	}
	b.running.Add(1)
	go func() {
		defer b.running.Done()
		ctx, cancel := context.WithTimeout(b.ctx, behindFor)
		defer cancel()
		f(ctx)
	}()
	return true
}

// wait returns once the work started so far is done (tests).
func (b *background) wait() { b.running.Wait() }

// stop cancels the work running and waits for it; nothing starts after.
func (b *background) stop() {
	b.mu.Lock()
	b.stopped = true
	b.mu.Unlock()
	b.cancel()
	b.running.Wait()
}
