package keylimit

import (
	"fmt"
	"net/netip"
	"testing"
	"time"
)

// clock is a settable clock for the window.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// newTest trusts the proxies given as CIDR ranges, as config parses them.
func newTest(t *testing.T, trusted ...string) (*Limiter, *clock) {
	t.Helper()
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	var nets Networks
	for _, s := range trusted {
		nets = append(nets, netip.MustParsePrefix(s))
	}
	return New(Options{Trusted: nets, Now: c.now}), c
}

func noHeaders(string) string { return "" }

// TestBlocksOnlyTheGuesser: five failures block that address for the rest
// of the window, with the wait to say in Retry-After; another address is
// not touched; the window ends.
func TestBlocksOnlyTheGuesser(t *testing.T) {
	l, c := newTest(t)
	for range DefaultMax - 1 {
		l.Fail("198.51.100.9")
	}
	if l.Blocked("198.51.100.9") != 0 {
		t.Fatal("blocked before the limit")
	}
	l.Fail("198.51.100.9")
	c.t = c.t.Add(20 * time.Second)
	if w := l.Blocked("198.51.100.9"); w != 40*time.Second || RetryAfter(w) != 40 {
		t.Errorf("wait %v, want 40s", w)
	}
	if l.Blocked("198.51.100.10") != 0 {
		t.Error("another address is blocked by the guesser's failures")
	}
	c.t = c.t.Add(40 * time.Second)
	if l.Blocked("198.51.100.9") != 0 {
		t.Error("the window does not end")
	}
}

// TestHoldsUnderASpray: an attacker who fills the table with fresh
// addresses does not wipe the count of the one guessing, and new addresses
// beyond the bound share their wide network's count instead of going free,
// while an address of another network still gets in.
func TestHoldsUnderASpray(t *testing.T) {
	l, c := newTest(t)
	l.bound = 100
	for range 5 {
		l.Fail("198.51.100.9")
	}
	for i := range 1000 {
		l.Fail(fmt.Sprintf("203.0.%d.%d", i/256, i%256))
	}
	if l.Blocked("198.51.100.9") == 0 {
		t.Error("the guesser's count was wiped by a spray of addresses")
	}
	if l.Blocked("203.0.77.77") == 0 {
		t.Error("a new address of the spraying network is not limited at all")
	}
	if l.Blocked("192.0.2.77") != 0 {
		t.Error("an address of another network is refused for the spray's failures")
	}
	if len(l.fails) > l.bound+l.bound/10+1 {
		t.Errorf("%d addresses tracked, bound %d", len(l.fails), l.bound)
	}
	// A spray from more wide networks than the table holds: the rest share one count.
	for i := range 1000 {
		l.Fail(fmt.Sprintf("10.%d.%d.1", i/256, i%256))
	}
	if len(l.fails) > l.bound+l.bound/10+1 {
		t.Errorf("%d addresses tracked, bound %d", len(l.fails), l.bound)
	}
	c.t = c.t.Add(time.Minute)
	if l.Blocked("198.51.100.9") != 0 {
		t.Error("the window does not end")
	}
	// Once the windows ended, the next new address sweeps them out (key
	// skips the sweep only while none can have ended).
	l.Fail("192.0.2.200")
	if len(l.fails) != 1 {
		t.Errorf("%d addresses tracked after every window ended, want 1", len(l.fails))
	}
}

// TestIPv6CountsPerNetwork: one IPv6 host has a whole /64 to pick
// addresses from; the limit counts the network.
func TestIPv6CountsPerNetwork(t *testing.T) {
	l, _ := newTest(t)
	a := l.Client("[2001:db8:1:2:aaaa::1]:4000", noHeaders)
	if b := l.Client("[2001:db8:1:2:bbbb::9]:4001", noHeaders); a != b {
		t.Errorf("two addresses of one /64 count apart: %q %q", a, b)
	}
	if c := l.Client("[2001:db8:1:3::1]:4001", noHeaders); c == a {
		t.Errorf("two /64 networks count as one: %q", c)
	}
	if v4 := l.Client("[::ffff:192.0.2.1]:80", noHeaders); v4 != "192.0.2.1" {
		t.Errorf("an IPv4-mapped address counts as %q", v4)
	}
}

// TestProxyHeadersOnlyFromTrustedProxies: X-Real-IP and X-Forwarded-For
// name the client only when the peer is a proxy in TRUSTED_PROXIES; by
// default no one is trusted, loopback included.
func TestProxyHeadersOnlyFromTrustedProxies(t *testing.T) {
	h := func(real, fwd string) func(string) string {
		return func(name string) string {
			return map[string]string{"X-Real-IP": real, "X-Forwarded-For": fwd}[name]
		}
	}
	open, _ := newTest(t)
	if got := open.Client("127.0.0.1:5000", h("203.0.113.7", "")); got != "127.0.0.1" {
		t.Errorf("untrusted loopback: counted as %q", got)
	}
	l, _ := newTest(t, "127.0.0.1/32", "::1/128", "10.0.0.0/8")
	for _, tt := range []struct {
		remote, real, fwd, want string
	}{
		{"127.0.0.1:5000", "203.0.113.7", "", "203.0.113.7"},
		{"[::1]:5000", "2001:db8::5", "", "2001:db8::/64"},
		{"192.0.2.8:5000", "203.0.113.7", "203.0.113.8", "192.0.2.8"},      // not a proxy
		{"127.0.0.1:5000", "", "198.51.100.1, 203.0.113.9", "203.0.113.9"}, // the nearest hop
		{"127.0.0.1:5000", "", "198.51.100.1, 203.0.113.9, 10.1.2.3", "203.0.113.9"},
		{"127.0.0.1:5000", "", "10.1.2.3", "10.1.2.3"},
		{"127.0.0.1:5000", "not an ip", "", "127.0.0.1"},
	} {
		if got := l.Client(tt.remote, h(tt.real, tt.fwd)); got != tt.want {
			t.Errorf("%s real=%q fwd=%q: counted as %q, want %q", tt.remote, tt.real, tt.fwd, got, tt.want)
		}
	}
}

// TestScheme: X-Forwarded-Proto is believed only from a trusted proxy.
func TestScheme(t *testing.T) {
	l, _ := newTest(t, "127.0.0.1/32", "10.0.0.0/8")
	proto := func(v string) func(string) string {
		return func(name string) string {
			if name == "X-Forwarded-Proto" {
				return v
			}
			return ""
		}
	}
	for _, tt := range []struct {
		remote string
		tls    bool
		proto  string
		want   string
	}{
		{"127.0.0.1:5000", false, "https", "https"},
		{"10.2.3.4:5000", false, "HTTPS, http", "https"},
		{"127.0.0.1:5000", false, "http", "http"},
		{"127.0.0.1:5000", false, "", "http"},
		{"198.51.100.1:5000", false, "https", "http"}, // not a proxy: its own word
		{"198.51.100.1:5000", true, "", "https"},
		{"@", false, "https", "http"},
	} {
		if got := l.Scheme(tt.remote, tt.tls, proto(tt.proto)); got != tt.want {
			t.Errorf("%s tls=%v proto=%q: %s, want %s", tt.remote, tt.tls, tt.proto, got, tt.want)
		}
	}
}
