package ui

import (
	"testing"
	"time"
)

// TestSessionsAreBounded: a spray of new sessions (an open page, clients
// that drop their cookie) never holds more than maxSessions, and the newest
// one works.
func TestSessionsAreBounded(t *testing.T) {
	s := newSessions(time.Hour)
	s.max = 100
	now := time.Now()
	var last string
	for range s.max + 50 {
		last = s.create(now, "", "").id
	}
	if n := len(s.by); n > s.max {
		t.Errorf("%d sessions held, want at most %d", n, s.max)
	}
	if _, f := s.get(last, now); f != foundLive {
		t.Error("the newest session is gone")
	}
	if _, f := s.get(last, now.Add(time.Hour)); f != foundNone {
		t.Error("an expired session still opens the page")
	}
}
