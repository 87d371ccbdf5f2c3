package core

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitForWaiters returns once n callers wait for the read of key in
// ctx's scope.
func waitForWaiters(t *testing.T, ctx context.Context, key string, n int) {
	t.Helper()
	scope := ctx.Value(readScopeKey{}).(*readScope)
	deadline := time.Now().Add(10 * time.Second)
	for {
		scope.mu.Lock()
		r := scope.reads[key]
		waiting := r != nil && r.waiting >= n
		scope.mu.Unlock()
		if waiting {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d callers did not come to wait for %q", n, key)
		}
		runtime.Gosched()
	}
}

// Callers that wait for a read get what it read; when it was cut short
// for its first caller alone (its context) one of them reads again and
// the other shares that; when it failed otherwise they get its error.
func TestReadOnceWaiters(t *testing.T) {
	for _, c := range []struct {
		name      string
		leaderErr error
		wantReads int32
		wantErr   bool
	}{
		{"read", nil, 1, false},
		{"cancelled for the first caller", Wrap(KindCanceled, context.Canceled, "request cancelled"), 2, false},
		{"failed", errors.New("Chroma is down"), 1, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := WithReadScope(context.Background())
			var reads atomic.Int32
			started, release := make(chan struct{}), make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				_, _ = ReadOnce(ctx, "a", func() (string, error) {
					reads.Add(1)
					close(started)
					<-release
					if c.leaderErr != nil {
						return "", c.leaderErr
					}
					return "the conversation", nil
				})
			})
			<-started
			got, errs := make([]string, 2), make([]error, 2)
			for i := range 2 {
				wg.Go(func() {
					got[i], errs[i] = ReadOnce(ctx, "a", func() (string, error) { reads.Add(1); return "the conversation", nil })
				})
			}
			waitForWaiters(t, ctx, "a", 2)
			close(release)
			wg.Wait()
			for i := range 2 {
				if c.wantErr != (errs[i] != nil) || !c.wantErr && got[i] != "the conversation" {
					t.Errorf("waiter %d got %q (%v)", i, got[i], errs[i])
				}
			}
			if n := reads.Load(); n != c.wantReads {
				t.Errorf("%d reads, want %d", n, c.wantReads)
			}
			// What was read is shared with the next caller; a failure is
			// not kept: the next caller reads afresh.
			next, err := ReadOnce(ctx, "a", func() (string, error) { reads.Add(1); return "afresh", nil })
			if want := map[bool]string{true: "afresh", false: "the conversation"}[c.wantErr]; err != nil || next != want {
				t.Errorf("the next caller got %q (%v), want %q", next, err, want)
			}
		})
	}
}

// A read is shared within its scope only, and by key; outside a scope
// every call reads.
func TestReadOnceScopes(t *testing.T) {
	var reads atomic.Int32
	read := func() (string, error) { reads.Add(1); return "x", nil }
	ctx := WithReadScope(context.Background())
	_, _ = ReadOnce(ctx, "a", read)
	_, _ = ReadOnce(ctx, "a", read)
	if reads.Load() != 1 {
		t.Errorf("a key read %d times in one scope, want once", reads.Load())
	}
	_, _ = ReadOnce(ctx, "b", read)
	_, _ = ReadOnce(WithReadScope(context.Background()), "a", read)
	if reads.Load() != 3 {
		t.Errorf("another key and another scope: %d reads in all, want 3", reads.Load())
	}
	plain := context.Background()
	_, _ = ReadOnce(plain, "a", read)
	_, _ = ReadOnce(plain, "a", read)
	if reads.Load() != 5 || InReadScope(plain) || !InReadScope(ctx) {
		t.Errorf("outside a scope: %d reads in all, want every call to read", reads.Load())
	}
}

// A read that panics leaves no waiter waiting: the panic goes to its
// first caller, and a waiter reads for itself.
func TestReadOnceAfterAPanic(t *testing.T) {
	ctx := WithReadScope(context.Background())
	started, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	var recovered any
	wg.Go(func() {
		defer func() { recovered = recover() }()
		_, _ = ReadOnce(ctx, "a", func() (string, error) {
			close(started)
			<-release
			panic("a bug in the read")
		})
	})
	<-started
	var got string
	var err error
	wg.Go(func() { got, err = ReadOnce(ctx, "a", func() (string, error) { return "read again", nil }) })
	waitForWaiters(t, ctx, "a", 1)
	close(release)
	wg.Wait()
	if recovered == nil {
		t.Error("the panic did not reach the first caller")
	}
	if err != nil || got != "read again" {
		t.Errorf("the waiter got %q (%v), want its own read", got, err)
	}
}
