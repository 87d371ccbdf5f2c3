package roomqueue

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"maunium.net/go/mautrix/id"
)

func TestQueueOrderPerRoom(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := New(ctx, 3, slog.New(slog.DiscardHandler), nil)
	var mu sync.Mutex
	got := map[id.RoomID][]int{}
	var running, peak atomic.Int32
	for i := 0; i < 30; i++ {
		for _, room := range []id.RoomID{"!a", "!b", "!c", "!d", "!e"} {
			d.Enqueue(room, Job{Name: "n", Run: func(context.Context) error {
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
	d.Close()
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

func TestQueueRecoversPanics(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := New(ctx, 1, slog.New(slog.DiscardHandler), nil)
	reported := make(chan struct{}, 1)
	ran := make(chan struct{}, 1)
	d.Enqueue("!r", Job{Name: "boom", Run: func(context.Context) error { panic("boom") },
		OnPanic: func(context.Context) { reported <- struct{}{} }})
	d.Enqueue("!r", Job{Name: "next", Run: func(context.Context) error { ran <- struct{}{}; return nil }})
	d.Close()
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

func TestQueueStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	d := New(ctx, 1, slog.New(slog.DiscardHandler), nil)
	started := make(chan struct{})
	var later atomic.Bool
	d.Enqueue("!r", Job{Name: "long", Run: func(ctx context.Context) error {
		close(started)
		<-ctx.Done() // a running answer is cancelled when the bot stops
		return ctx.Err()
	}})
	d.Enqueue("!r", Job{Name: "pending", Run: func(context.Context) error { later.Store(true); return nil }})
	<-started
	cancel()
	done := make(chan struct{})
	go func() { d.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("close did not return after the context ended")
	}
	if later.Load() {
		t.Error("a pending job ran after the bot stopped")
	}
	if d.Enqueue("!r", Job{Name: "x", Run: func(context.Context) error { return nil }}) {
		t.Error("enqueue accepted a job after close")
	}
}

func TestQueueBound(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	d := New(ctx, 1, slog.New(slog.DiscardHandler), nil)
	block := make(chan struct{})
	accepted := 0
	for i := 0; i < maxPendingPerRoom+10; i++ {
		if d.Enqueue("!r", Job{Name: "j", Run: func(context.Context) error { <-block; return nil }}) {
			accepted++
		}
	}
	if accepted > maxPendingPerRoom+1 {
		t.Errorf("accepted %d jobs, the room queue holds %d", accepted, maxPendingPerRoom)
	}
	cancel()
	close(block)
	d.Close()
}

// TestQueueReportsDrops: a job refused because its room's queue is full
// is reported through its onDrop at once, while the room is still busy,
// never dropped silently; the reports waiting are bounded too.
func TestQueueReportsDrops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := New(ctx, 1, slog.New(slog.DiscardHandler), nil)
	block := make(chan struct{})
	for range maxPendingPerRoom + 1 { // one running, a full queue behind it
		d.Enqueue("!r", Job{Name: "slow", Run: func(context.Context) error { <-block; return nil }})
	}
	var reported atomic.Int32
	first, release := make(chan struct{}), make(chan struct{})
	refused := Job{Name: "refused", Run: func(context.Context) error { return nil }, OnDrop: func(context.Context) {
		if reported.Add(1) == 1 {
			close(first)
			<-release // hold the reporter so that the next reports wait
		}
	}}
	if d.Enqueue("!r", refused) {
		t.Fatal("a job was accepted into a full queue")
	}
	select {
	case <-first: // reported while the room's queue is still blocked
	case <-time.After(10 * time.Second):
		t.Fatal("the refused job was never reported")
	}
	for range maxDropReports + 5 {
		d.Enqueue("!r", refused)
	}
	close(release)
	close(block)
	d.Close()
	if got, want := reported.Load(), int32(1+maxDropReports); got != want {
		t.Errorf("%d drops reported, want %d (the first, then as many as may wait)", got, want)
	}
}

// TestQueueReportsStop: jobs still queued when the queue's context ends
// are not run, and each reports through its OnStop with a live context.
func TestQueueReportsStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	d := New(ctx, 1, slog.New(slog.DiscardHandler), nil)
	started, release := make(chan struct{}), make(chan struct{})
	d.Enqueue("!a", Job{Name: "running", Run: func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		<-release
		return nil
	}})
	var stopped, ran atomic.Int32
	for range 3 {
		d.Enqueue("!a", Job{Name: "queued",
			Run: func(context.Context) error { ran.Add(1); return nil },
			OnStop: func(ctx context.Context) {
				if ctx.Err() == nil {
					stopped.Add(1)
				}
			}})
	}
	<-started
	if n := d.Pending("!a"); n != 4 {
		t.Errorf("Pending = %d, want 4 (one running, three queued)", n)
	}
	cancel()
	close(release)
	d.Close()
	if stopped.Load() != 3 || ran.Load() != 0 {
		t.Errorf("stopped %d, ran %d; want 3 reported and none run", stopped.Load(), ran.Load())
	}
	if n := d.Pending("!a"); n != 0 {
		t.Errorf("Pending after Close = %d", n)
	}
}

// TestQueueUrgentJobs: urgent jobs run before the room's waiting jobs, in
// their own order, after the one running, and a full room still takes them.
func TestQueueUrgentJobs(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := New(ctx, 1, slog.New(slog.DiscardHandler), nil)
	block := make(chan struct{})
	var mu sync.Mutex
	var got []string
	record := func(name string) Job {
		return Job{Name: name, Run: func(context.Context) error {
			mu.Lock()
			got = append(got, name)
			mu.Unlock()
			return nil
		}}
	}
	started := make(chan struct{})
	d.Enqueue("!r", Job{Name: "running", Run: func(context.Context) error { close(started); <-block; return nil }})
	<-started
	for i := 0; i < maxPendingPerRoom; i++ {
		d.Enqueue("!r", record("waiting"))
	}
	if d.Enqueue("!r", record("refused")) {
		t.Fatal("the room's queue should be full")
	}
	if !d.EnqueueUrgent("!r", record("urgent-1")) || !d.EnqueueUrgent("!r", record("urgent-2")) {
		t.Fatal("a full room refused an urgent job")
	}
	close(block)
	d.Close()
	if len(got) != maxPendingPerRoom+2 || got[0] != "urgent-1" || got[1] != "urgent-2" || got[2] != "waiting" {
		t.Errorf("urgent jobs should run first, in order: %d jobs, first %v", len(got), got[:3])
	}
}
