package roomqueue

import (
	"context"
	"sync"
)

// Work counts the jobs of one or more queues that are queued or running,
// and the work they spawned. A bridge that stops waits on it to answer what
// it accepted: queues that hand jobs to each other share one Work, and a
// job hands its successor on before it ends, so the count never passes
// through zero while work remains.
type Work struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed while n == 0; nil before the first add
}

func (w *Work) add() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		w.idle = make(chan struct{})
	}
	w.n++
}

func (w *Work) done() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n--
	if w.n == 0 {
		close(w.idle)
	}
}

// Wait returns nil once nothing is queued or running, or ctx's error if it
// ends first.
func (w *Work) Wait(ctx context.Context) error {
	for {
		w.mu.Lock()
		n, idle := w.n, w.idle
		w.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-idle:
			// Work may have come in since; look again.
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
