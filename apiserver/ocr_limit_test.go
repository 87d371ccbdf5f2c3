package apiserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

func TestOCRSlotsBoundAndAnswerBusy(t *testing.T) {
	s := newSlots(2, 20*time.Millisecond)
	ctx := context.Background()
	r1, err1 := s.acquire(ctx)
	r2, err2 := s.acquire(ctx)
	if err1 != nil || err2 != nil {
		t.Fatalf("two slots of two: %v %v", err1, err2)
	}
	_, err := s.acquire(ctx)
	if core.KindOf(err) != core.KindUnavailable || !strings.Contains(core.SafeMessage(err), "OCR_CONCURRENCY") {
		t.Fatalf("a third upload should be 503 naming OCR_CONCURRENCY, got %v", err)
	}
	// A slot freed while an upload waits goes to it.
	got := make(chan error, 1)
	go func() {
		s.wait = time.Minute
		r, err := s.acquire(ctx)
		if err == nil {
			r()
		}
		got <- err
	}()
	r1()
	if err := <-got; err != nil {
		t.Fatalf("a waiting upload did not get the freed slot: %v", err)
	}
	r2()
	// A request that ends while waiting gives up at once.
	s2 := newSlots(1, time.Minute)
	rel, _ := s2.acquire(ctx)
	defer rel()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s2.acquire(cctx); err == nil {
		t.Fatal("a cancelled request got a slot")
	}
}
