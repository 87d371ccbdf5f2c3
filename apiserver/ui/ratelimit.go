package ui

import (
	"sync"
	"time"
)

// loginLimit bounds failed logins per client address: after max failures
// in a window the form answers 429 until the window ends, so the API key
// cannot be guessed at speed.
type loginLimit struct {
	mu     sync.Mutex
	max    int
	window time.Duration
	fails  map[string]failures
}

type failures struct {
	n     int
	since time.Time
}

// maxTrackedClients bounds the map: beyond it the oldest state is dropped
// wholesale rather than growing without end under a spray of addresses.
const maxTrackedClients = 10000

func newLoginLimit(max int, window time.Duration) *loginLimit {
	return &loginLimit{max: max, window: window, fails: map[string]failures{}}
}

// blocked reports whether addr used up its failures in the current window.
func (l *loginLimit) blocked(addr string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, ok := l.fails[addr]
	if ok && now.Sub(f.since) >= l.window {
		delete(l.fails, addr)
		return false
	}
	return ok && f.n >= l.max
}

func (l *loginLimit) fail(addr string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.fails) >= maxTrackedClients {
		clear(l.fails)
	}
	f, ok := l.fails[addr]
	if !ok || now.Sub(f.since) >= l.window {
		f = failures{since: now}
	}
	f.n++
	l.fails[addr] = f
}
