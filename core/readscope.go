package core

import (
	"context"
	"errors"
	"sync"
)

// A chat's retrieval reads its conversation up to seven times: the recent
// turns and summaries, both searched by vector and by keyword for recall,
// and the neighbours of what recall found. A store that answers each of
// those reads with a request whose cost grows with the conversation
// (Chroma: 20–60 ms each for 400 turns at 100k documents) may read the
// conversation once per retrieval instead, and answer the others from
// that read: the retrieval is a read scope (WithReadScope), and the store
// shares its reads within it (ReadOnce). The scope lasts one retrieval, so
// a conversation written by another replica meanwhile is seen by the next
// chat, as without it.

type readScopeKey struct{}

var errReadPanicked = Errorf(KindInternal, "a shared read panicked")

// readScope holds the reads shared within one scope, by key.
type readScope struct {
	mu    sync.Mutex
	reads map[string]*sharedRead
}

// sharedRead is one read: done is closed when val and err are set.
type sharedRead struct {
	done    chan struct{}
	val     any
	err     error
	waiting int // the callers that came to wait for it (tests wait for them)
}

// WithReadScope returns ctx marked as one read-only pass over the store,
// whose reads a store may share (ReadOnce). Nothing may be written under
// it: a read shared in it would not see the write.
func WithReadScope(ctx context.Context) context.Context {
	return context.WithValue(ctx, readScopeKey{}, &readScope{reads: map[string]*sharedRead{}})
}

// InReadScope reports whether ctx is within a read scope: a store reads
// more at once only when the read will be shared.
func InReadScope(ctx context.Context) bool {
	_, ok := ctx.Value(readScopeKey{}).(*readScope)
	return ok
}

// ReadOnce returns what read returns, read once per key within ctx's read
// scope: a caller that asks while the first read is running waits for it.
// Outside a scope it simply reads. A failed read is not kept: the next
// caller reads again, as does a caller that waited for a read its first
// caller's context cut short.
func ReadOnce[T any](ctx context.Context, key string, read func() (T, error)) (T, error) {
	scope, ok := ctx.Value(readScopeKey{}).(*readScope)
	if !ok {
		return read()
	}
	scope.mu.Lock()
	r, shared := scope.reads[key]
	if shared {
		r.waiting++
	} else {
		r = &sharedRead{done: make(chan struct{})}
		scope.reads[key] = r
	}
	scope.mu.Unlock()
	if !shared {
		var v T
		var err error = errReadPanicked // kept if read panics: its waiters read for themselves
		defer func() {
			r.val, r.err = v, err
			if err != nil {
				scope.mu.Lock()
				delete(scope.reads, key)
				scope.mu.Unlock()
			}
			close(r.done)
		}()
		v, err = read()
		return v, err
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
	if r.err != nil {
		// A read cut short for its first caller alone (its context, a
		// panic) is read again, and shared; another failure is this
		// caller's too.
		if errors.Is(r.err, errReadPanicked) || KindOf(r.err) == KindCanceled ||
			errors.Is(r.err, context.Canceled) || errors.Is(r.err, context.DeadlineExceeded) {
			return ReadOnce(ctx, key, read)
		}
		var zero T
		return zero, r.err
	}
	return r.val.(T), nil
}
