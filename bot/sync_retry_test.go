package bot

import (
	"context"
	"errors"
	"testing"
	"time"

	"maunium.net/go/mautrix"
)

// TestSyncRetryBackoff: a failing /sync is retried soon, then less and
// less often up to syncRetryMax; a successful sync starts over; a token
// the homeserver no longer knows stops syncing.
func TestSyncRetryBackoff(t *testing.T) {
	s := newRetryingSyncer()
	fail := errors.New("connection refused")
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
	for i, w := range want {
		if d, err := s.OnFailedSync(nil, fail); d != w || err != nil {
			t.Fatalf("failure %d: wait %s (%v), want %s", i+1, d, err, w)
		}
	}
	if err := s.ProcessResponse(context.Background(), &mautrix.RespSync{}, "since"); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.OnFailedSync(nil, fail); d != syncRetryFirst {
		t.Errorf("after a successful sync the first retry waits %s, want %s", d, syncRetryFirst)
	}
	if _, err := s.OnFailedSync(nil, mautrix.MUnknownToken); !errors.Is(err, mautrix.MUnknownToken) {
		t.Errorf("an unknown token must stop syncing, got %v", err)
	}
}
