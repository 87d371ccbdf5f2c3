package ui

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"
)

// TestLoginLimitHoldsUnderASpray: an attacker who fills the table with
// fresh addresses does not wipe the count of the one guessing, and new
// addresses beyond the bound share one count instead of going free.
func TestLoginLimitHoldsUnderASpray(t *testing.T) {
	now := time.Now()
	l := newLoginLimit(5, time.Minute)
	l.bound = 100
	for range 5 {
		l.fail("198.51.100.9", now)
	}
	for i := range 1000 {
		l.fail(fmt.Sprintf("203.0.%d.%d", i/256, i%256), now)
	}
	if !l.blocked("198.51.100.9", now) {
		t.Error("the guesser's count was wiped by a spray of addresses")
	}
	if !l.blocked("192.0.2.77", now) {
		t.Error("a new address beyond the bound is not limited at all")
	}
	if len(l.fails) > l.bound+1 {
		t.Errorf("%d addresses tracked, bound %d", len(l.fails), l.bound)
	}
	if l.blocked("198.51.100.9", now.Add(time.Minute)) {
		t.Error("the window does not end")
	}
}

// TestIPv6CountsPerNetwork: one IPv6 host has a whole /64 to pick
// addresses from; the limit counts the network.
func TestIPv6CountsPerNetwork(t *testing.T) {
	r := httptest.NewRequest("POST", "/ui/login", nil)
	r.RemoteAddr = "[2001:db8:1:2:aaaa::1]:4000"
	a := clientAddr(r)
	r.RemoteAddr = "[2001:db8:1:2:bbbb::9]:4001"
	if b := clientAddr(r); a != b {
		t.Errorf("two addresses of one /64 count apart: %q %q", a, b)
	}
	r.RemoteAddr = "[2001:db8:1:3::1]:4001"
	if c := clientAddr(r); c == a {
		t.Errorf("two /64 networks count as one: %q", c)
	}
}
