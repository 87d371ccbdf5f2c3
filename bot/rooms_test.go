package bot

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

func TestDispatcherOrderPerRoom(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := newDispatcher(ctx, 3, slog.New(slog.DiscardHandler))
	var mu sync.Mutex
	got := map[id.RoomID][]int{}
	var running, peak atomic.Int32
	for i := 0; i < 30; i++ {
		for _, room := range []id.RoomID{"!a", "!b", "!c", "!d", "!e"} {
			d.enqueue(room, job{name: "n", run: func(context.Context) error {
				n := running.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(time.Millisecond)
				running.Add(-1)
				mu.Lock()
				got[room] = append(got[room], i)
				mu.Unlock()
				return nil
			}})
		}
	}
	d.close()
	for room, seq := range got {
		if len(seq) != 30 {
			t.Errorf("%s ran %d jobs, want 30", room, len(seq))
		}
		for i, v := range seq {
			if v != i {
				t.Fatalf("%s ran out of order: %v", room, seq)
			}
		}
	}
	if p := peak.Load(); p > 3 || p < 2 {
		t.Errorf("peak concurrency %d, want at most the limit of 3 (and some parallelism)", p)
	}
}

func TestDispatcherRecoversPanics(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := newDispatcher(ctx, 1, slog.New(slog.DiscardHandler))
	reported := make(chan struct{}, 1)
	ran := make(chan struct{}, 1)
	d.enqueue("!r", job{name: "boom", run: func(context.Context) error { panic("boom") },
		onPanic: func(context.Context) { reported <- struct{}{} }})
	d.enqueue("!r", job{name: "next", run: func(context.Context) error { ran <- struct{}{}; return nil }})
	d.close()
	select {
	case <-reported:
	default:
		t.Error("the panic was not reported (❌)")
	}
	select {
	case <-ran:
	default:
		t.Error("the room's next job did not run after a panic")
	}
}

func TestDispatcherStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	d := newDispatcher(ctx, 1, slog.New(slog.DiscardHandler))
	started := make(chan struct{})
	var later atomic.Bool
	d.enqueue("!r", job{name: "long", run: func(ctx context.Context) error {
		close(started)
		<-ctx.Done() // a running answer is cancelled when the bot stops
		return ctx.Err()
	}})
	d.enqueue("!r", job{name: "pending", run: func(context.Context) error { later.Store(true); return nil }})
	<-started
	cancel()
	done := make(chan struct{})
	go func() { d.close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("close did not return after the context ended")
	}
	if later.Load() {
		t.Error("a pending job ran after the bot stopped")
	}
	if d.enqueue("!r", job{name: "x", run: func(context.Context) error { return nil }}) {
		t.Error("enqueue accepted a job after close")
	}
}

func TestDispatcherBound(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	d := newDispatcher(ctx, 1, slog.New(slog.DiscardHandler))
	block := make(chan struct{})
	accepted := 0
	for i := 0; i < maxPendingPerRoom+10; i++ {
		if d.enqueue("!r", job{name: "j", run: func(context.Context) error { <-block; return nil }}) {
			accepted++
		}
	}
	if accepted > maxPendingPerRoom+1 {
		t.Errorf("accepted %d jobs, the room queue holds %d", accepted, maxPendingPerRoom)
	}
	cancel()
	close(block)
	d.close()
}

// TestGuardRecovers: a panic in a sync-loop handler must never escape into
// mautrix, where it would end the sync loop.
func TestGuardRecovers(t *testing.T) {
	logs := &syncBuffer{}
	b := &Bot{log: slog.New(slog.NewTextHandler(logs, nil))}
	h := b.guard("message", func(context.Context, *event.Event) { panic("boom") })
	h(context.Background(), &event.Event{RoomID: "!r:x", ID: "$e"})
	if !strings.Contains(logs.String(), "panic in sync handler") || !strings.Contains(logs.String(), "event_id=$e") {
		t.Errorf("the panic should be logged with the event, got %q", logs.String())
	}
}
