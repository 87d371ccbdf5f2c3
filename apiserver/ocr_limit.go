package apiserver

import (
	"context"
	"time"

	"github.com/ada-chat/ada/core"
)

// slots bounds how many uploads run tesseract at once (OCR_CONCURRENCY).
// Each tesseract process takes a core and tens of MB, so a burst of uploads
// must queue, not fork one process per request.
type slots struct {
	free chan struct{}
	// wait is how long an upload waits for a slot before it gets 503.
	wait time.Duration
}

func newSlots(n int, wait time.Duration) *slots {
	return &slots{free: make(chan struct{}, n), wait: wait}
}

// ocrQueueWait is how long an upload waits for a tesseract slot: a few
// images' time, so a short burst queues and a flood gets 503 quickly.
const ocrQueueWait = 5 * time.Second

// retryAfterBusy is the Retry-After of a busy answer, in seconds: about
// what one image takes.
const retryAfterBusy = "2"

// acquire takes a slot, waiting at most s.wait; the caller must call the
// returned release. A full queue is KindUnavailable (503), so clients know
// to retry rather than fix their request.
func (s *slots) acquire(ctx context.Context) (release func(), err error) {
	select {
	case s.free <- struct{}{}:
		return s.release, nil
	default:
	}
	t := time.NewTimer(s.wait)
	defer t.Stop()
	select {
	case s.free <- struct{}{}:
		return s.release, nil
	case <-t.C:
		return nil, core.Errorf(core.KindUnavailable,
			"OCR is busy: %d images are being read (OCR_CONCURRENCY); retry in a moment", cap(s.free))
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *slots) release() { <-s.free }
