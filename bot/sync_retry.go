package bot

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"maunium.net/go/mautrix"
)

// Backoff of a failing /sync: the first retry comes soon, so that a
// homeserver restart costs members a second or two rather than mautrix's
// fixed 10 s, and repeated failures wait longer, up to syncRetryMax.
const (
	syncRetryFirst = 500 * time.Millisecond
	syncRetryMax   = 10 * time.Second
)

// retryingSyncer is mautrix's default syncer with a growing backoff after
// failed syncs, reset by the next successful one.
type retryingSyncer struct {
	*mautrix.DefaultSyncer
	failures atomic.Int32
}

func newRetryingSyncer() *retryingSyncer {
	s := &retryingSyncer{DefaultSyncer: mautrix.NewDefaultSyncer()}
	s.OnSync(func(context.Context, *mautrix.RespSync, string) bool {
		s.failures.Store(0)
		return true
	})
	return s
}

// OnFailedSync waits syncRetryFirst, doubling per failure up to
// syncRetryMax; a token the homeserver no longer knows stops syncing.
func (s *retryingSyncer) OnFailedSync(_ *mautrix.RespSync, err error) (time.Duration, error) {
	if errors.Is(err, mautrix.MUnknownToken) {
		return 0, err
	}
	n := min(s.failures.Add(1), 8)
	return min(syncRetryFirst<<(n-1), syncRetryMax), nil
}
