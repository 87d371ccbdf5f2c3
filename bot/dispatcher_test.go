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

// TestDispatcherReportsDrops: a job refused because its room's queue is full
// is reported through its onDrop at once, while the room is still busy,
// never dropped silently; the reports waiting are bounded too.
func TestDispatcherReportsDrops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := newDispatcher(ctx, 1, slog.New(slog.DiscardHandler))
	block := make(chan struct{})
	for range maxPendingPerRoom + 1 { // one running, a full queue behind it
		d.enqueue("!r", job{name: "slow", run: func(context.Context) error { <-block; return nil }})
	}
	var reported atomic.Int32
	first, release := make(chan struct{}), make(chan struct{})
	refused := job{name: "refused", run: func(context.Context) error { return nil }, onDrop: func(context.Context) {
		if reported.Add(1) == 1 {
			close(first)
			<-release // hold the reporter so that the next reports wait
		}
	}}
	if d.enqueue("!r", refused) {
		t.Fatal("a job was accepted into a full queue")
	}
	select {
	case <-first: // reported while the room's queue is still blocked
	case <-time.After(10 * time.Second):
		t.Fatal("the refused job was never reported")
	}
	for range maxDropReports + 5 {
		d.enqueue("!r", refused)
	}
	close(release)
	close(block)
	d.close()
	if got, want := reported.Load(), int32(1+maxDropReports); got != want {
		t.Errorf("%d drops reported, want %d (the first, then as many as may wait)", got, want)
	}
}
