package apiserver

import "sync"

// inflight counts the requests being answered, streams included, so that a
// shutdown can let them finish: once draining, no new request is counted
// (it is answered 503), and idle is closed when the last one ends.
type inflight struct {
	mu       sync.Mutex
	n        int
	draining bool
	idle     chan struct{}
}

func newInflight() *inflight { return &inflight{idle: make(chan struct{})} }

// enter counts a new request, unless the server is draining.
func (f *inflight) enter() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.draining {
		return false
	}
	f.n++
	return true
}

// leave uncounts a request that enter counted.
func (f *inflight) leave() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	f.closeIfIdle()
}

// drain refuses new requests from now on and returns a channel closed once
// the running ones have ended.
func (f *inflight) drain() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.draining = true
	f.closeIfIdle()
	return f.idle
}

func (f *inflight) closeIfIdle() {
	if !f.draining || f.n > 0 {
		return
	}
	select {
	case <-f.idle:
	default:
		close(f.idle)
	}
}
