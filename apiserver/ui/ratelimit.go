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
	bound  int // addresses tracked at most; maxTrackedClients, smaller in tests
	fails  map[string]failures
}

type failures struct {
	n     int
	since time.Time
}

// maxTrackedClients bounds the map under a spray of addresses. When it is
// full of live windows, new addresses share one count (overflowClient):
// wiping the table instead would hand a guesser a fresh count for the
// price of a spray.
const maxTrackedClients = 10000

const overflowClient = "(addresses beyond the bound)"

func newLoginLimit(max int, window time.Duration) *loginLimit {
	return &loginLimit{max: max, window: window, bound: maxTrackedClients, fails: map[string]failures{}}
}

// key is the count addr goes into; the caller holds mu.
func (l *loginLimit) key(addr string, now time.Time) string {
	if _, ok := l.fails[addr]; ok || len(l.fails) < l.bound {
		return addr
	}
	for k, f := range l.fails {
		if now.Sub(f.since) >= l.window {
			delete(l.fails, k)
		}
	}
	if len(l.fails) < l.bound {
		return addr
	}
	return overflowClient
}

// blocked reports whether addr used up its failures in the current window.
func (l *loginLimit) blocked(addr string, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	addr = l.key(addr, now)
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
	addr = l.key(addr, now)
	f, ok := l.fails[addr]
	if !ok || now.Sub(f.since) >= l.window {
		f = failures{since: now}
	}
	f.n++
	l.fails[addr] = f
}
