// Package keylimit counts failed keys per client address, across every door
// that checks one: the API's Bearer key (/v1, /mcp, /metrics) and the memory
// page's logins (the operator's key and members' links). One Limiter is
// built by cmd/ada and handed to both, so a guesser cannot spread guesses
// over the doors to get more of them.
//
// An address over the limit is refused before its key is even compared,
// whether the key is right or not: otherwise a blocked guesser would still
// learn which guess is right. Other addresses are not affected: their own
// counts decide for them (see key for the one exception, a spray of more
// addresses than the table holds).
package keylimit

import (
	"sync"
	"time"
)

// Options configure a Limiter; zero values take the defaults.
type Options struct {
	// Max failures within Window block an address until the window ends.
	Max    int
	Window time.Duration
	// Trusted are the proxies whose client headers are believed
	// (TRUSTED_PROXIES); see Client.
	Trusted Networks
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
}

const (
	// DefaultMax failures in DefaultWindow: a person who mistyped gets
	// several tries, a guesser a handful a minute.
	DefaultMax    = 5
	DefaultWindow = time.Minute
)

// Limiter counts failures per client network. Its zero value is not
// usable; build it with New.
type Limiter struct {
	mu      sync.Mutex
	max     int
	window  time.Duration
	bound   int // networks tracked at most; maxTracked, smaller in tests
	fails   map[string]failures
	trusted Networks
	now     func() time.Time
	// sweepAt is when the earliest window in fails ends, as of the last
	// sweep: before it a sweep of a full table frees nothing, and key
	// skips it (under a spray the table stays full, and scanning it on
	// every request, a right key's included, cost 0.3 ms under mu).
	sweepAt time.Time
}

type failures struct {
	n     int
	since time.Time
}

// New builds a Limiter.
func New(o Options) *Limiter {
	if o.Max <= 0 {
		o.Max = DefaultMax
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Limiter{max: o.Max, window: o.Window, bound: maxTracked, fails: map[string]failures{},
		trusted: o.Trusted, now: o.Now}
}

// maxTracked bounds the table under a spray of addresses (about 1 MB).
// When it is full of live windows, new addresses are counted by their wide
// network (wideOf), and when that part is full too, they share one count
// (overflowClient): wiping the table instead would hand a guesser a fresh
// count for the price of a spray.
const maxTracked = 10000

const overflowClient = "(addresses beyond the bound)"

// key is the count client goes into; the caller holds mu.
func (l *Limiter) key(client string, now time.Time) string {
	if _, ok := l.fails[client]; ok || len(l.fails) < l.bound {
		return client
	}
	if !now.Before(l.sweepAt) {
		l.sweep(now)
	}
	if len(l.fails) < l.bound {
		return client
	}
	// Only during a spray: a new address shares the count of its wide
	// network (an IPv4 /16, an IPv6 /32), so a correct key from elsewhere
	// still goes through; a tenth more entries hold these.
	if w := wideOf(client); w != "" {
		if _, ok := l.fails[w]; ok || len(l.fails) < l.bound+l.bound/10 {
			return w
		}
	}
	return overflowClient
}

// sweep deletes the ended windows and notes when the next one ends; the
// caller holds mu. Windows counted later end later than that.
func (l *Limiter) sweep(now time.Time) {
	l.sweepAt = now.Add(l.window)
	for k, f := range l.fails {
		end := f.since.Add(l.window)
		if !now.Before(end) {
			delete(l.fails, k)
		} else if end.Before(l.sweepAt) {
			l.sweepAt = end
		}
	}
}

// Blocked reports how long client must wait before its next key is
// looked at; zero when it may try now.
func (l *Limiter) Blocked(client string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	k := l.key(client, now)
	f, ok := l.fails[k]
	if !ok {
		return 0
	}
	left := l.window - now.Sub(f.since)
	if left <= 0 {
		delete(l.fails, k)
		return 0
	}
	if f.n < l.max {
		return 0
	}
	return left
}

// Fail counts a wrong key (or a bad member link) from client.
func (l *Limiter) Fail(client string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	k := l.key(client, now)
	f, ok := l.fails[k]
	if !ok || now.Sub(f.since) >= l.window {
		f = failures{since: now}
	}
	f.n++
	l.fails[k] = f
}

// RetryAfter is the Retry-After header value for a wait: whole seconds,
// rounded up, at least 1.
func RetryAfter(wait time.Duration) int {
	s := int((wait + time.Second - 1) / time.Second)
	return max(s, 1)
}
