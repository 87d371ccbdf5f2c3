package core

import (
	"context"
	"testing"
	"time"
)

// TestPatchKeepsTheCheckedExpiry: an expiry checked as in the future is the
// one stored, even when the clock has moved past it by the time the memory
// is written (it was checked twice, and the second, failed, check cleared
// the expiry silently).
func TestPatchKeepsTheCheckedExpiry(t *testing.T) {
	u := newUnit(t, unitOptions(), &fakeLLM{})
	u.svc.now = tick(testClock) // a second later at every reading
	m, err := u.svc.CreateMemory(context.Background(), MemoryInput{Text: "the offer ends soon"})
	if err != nil {
		t.Fatal(err)
	}
	expires := u.svc.now().Add(1500 * time.Millisecond) // after the next reading, before the one after
	got, err := u.svc.PatchMemory(context.Background(), m.ID, MemoryPatch{ExpiresAt: &expires})
	if err != nil {
		t.Fatal(err)
	}
	if got.Meta.ExpiresAt == nil || !got.Meta.ExpiresAt.Equal(expires) {
		t.Fatalf("expires_at = %v, want %v", got.Meta.ExpiresAt, expires)
	}
}
