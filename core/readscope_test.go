package core_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ada-chat/ada/core"
)

// Within a read scope a key is read once, however many ask for it and
// however they overlap; outside one, every call reads.
func TestReadOnceSharesAReadWithinItsScope(t *testing.T) {
	var reads atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	read := func() (string, error) {
		if reads.Add(1) == 1 {
			close(started)
			<-release // the others ask while the first read runs
		}
		return "the conversation", nil
	}
	ctx := core.WithReadScope(context.Background())
	var wg sync.WaitGroup
	got := make([]string, 4)
	wg.Go(func() { got[0], _ = core.ReadOnce(ctx, "a", read) })
	<-started
	for i := 1; i < 3; i++ {
		wg.Go(func() { got[i], _ = core.ReadOnce(ctx, "a", read) })
	}
	close(release)
	wg.Wait()
	got[3], _ = core.ReadOnce(ctx, "a", read) // after it ended
	for i, g := range got {
		if g != "the conversation" {
			t.Errorf("caller %d got %q", i, g)
		}
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("4 callers in one scope read %d times, want once", n)
	}
	if _, err := core.ReadOnce(ctx, "b", read); err != nil || reads.Load() != 2 {
		t.Errorf("another key was not read for itself: %d reads (%v)", reads.Load(), err)
	}
	other := core.WithReadScope(context.Background())
	if _, _ = core.ReadOnce(other, "a", read); reads.Load() != 3 {
		t.Error("another scope shared the first scope's read")
	}
	plain := context.Background()
	_, _ = core.ReadOnce(plain, "a", read)
	_, _ = core.ReadOnce(plain, "a", read)
	if reads.Load() != 5 || core.InReadScope(plain) || !core.InReadScope(ctx) {
		t.Errorf("outside a scope: %d reads, want every call to read", reads.Load())
	}
}

// A failed read is not kept: a caller that waited for it reads for
// itself (the read may have failed for its first caller's context alone),
// as does a caller that comes after it, and that read is shared.
func TestReadOnceKeepsNoFailure(t *testing.T) {
	ctx := core.WithReadScope(context.Background())
	var reads atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	failing := errors.New("cancelled for its first caller")
	var wg sync.WaitGroup
	var firstErr, nextErr error
	var nextGot string
	wg.Go(func() {
		_, firstErr = core.ReadOnce(ctx, "a", func() (string, error) {
			reads.Add(1)
			close(started)
			<-release
			return "", failing
		})
	})
	<-started
	wg.Go(func() { // it waits for the failing read, or comes after it
		nextGot, nextErr = core.ReadOnce(ctx, "a", func() (string, error) { reads.Add(1); return "read again", nil })
	})
	close(release)
	wg.Wait()
	if !errors.Is(firstErr, failing) {
		t.Errorf("the first caller got %v, want its read's error", firstErr)
	}
	if nextErr != nil || nextGot != "read again" {
		t.Errorf("the next caller got %q (%v), want its own read", nextGot, nextErr)
	}
	got, err := core.ReadOnce(ctx, "a", func() (string, error) { reads.Add(1); return "a third read", nil })
	if err != nil || got != "read again" || reads.Load() != 2 {
		t.Errorf("after the read again: %q (%v), %d reads; want it shared", got, err, reads.Load())
	}
}
