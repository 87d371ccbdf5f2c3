package ui_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/apiserver/ui"
)

// clock is the page's injected time.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestMemberSessionsEnd (issue 36): when a member ends their sessions
// (`!ada web logout`, `!ada forget me`: the bridge's epoch changes) every
// session of theirs ends at its next request, on every browser, with a page
// that says so; another member's and a new link's sessions go on. An idle
// member session ends after 30 minutes without a request, a used one lasts
// until the absolute limit; the operator's session has no idle limit.
func TestMemberSessionsEnd(t *testing.T) {
	// The cookie jar expires cookies by the real clock: start there.
	clk := &clock{now: time.Now()}
	mem := &members{tokens: map[string]string{}, rooms: map[string][]string{alice: {roomA}, bob: {roomA}}}
	s := newSite(t, ui.Options{APIKey: testKey, Members: mem, Now: clk.Now})
	links := 0
	login := func(user string) *browser {
		t.Helper()
		links++
		tok := linkToken(fmt.Sprint(user, links))
		mem.mu.Lock()
		mem.tokens[tok] = user
		mem.mu.Unlock()
		b := s.browser()
		if p := b.post("/ui/login/"+tok, nil); p.status != http.StatusSeeOther {
			t.Fatalf("member link: %d", p.status)
		}
		want(t, b.get("/ui/memories"), http.StatusOK, "Signed in as "+user)
		return b
	}
	ended := func(b *browser, why string) {
		t.Helper()
		p := b.get("/ui/memories")
		if p.status != http.StatusUnauthorized || !strings.Contains(p.body, "was ended") || strings.Contains(p.body, "Signed in as") {
			t.Errorf("%s: %d\n%.1500s", why, p.status, p.body)
		}
	}

	phone, laptop, bobs := login(alice), login(alice), login(bob)
	csrf := phone.csrf()
	mem.endSessions(alice)
	ended(phone, "a session after the member ended them")
	ended(laptop, "the member's other session")
	want(t, laptop.post("/ui/logout", map[string][]string{"csrf": {csrf}}), http.StatusUnauthorized)
	want(t, bobs.get("/ui/memories"), http.StatusOK, "Signed in as "+bob)
	again := login(alice)

	clk.advance(29 * time.Minute)
	want(t, again.get("/ui/memories"), http.StatusOK)
	clk.advance(29 * time.Minute) // 58 minutes since login, 29 idle
	want(t, again.get("/ui/memories"), http.StatusOK)
	// An ended member session says how to get a new link, and never asks
	// the member for the operator's key (issue 40 item 5).
	expired := func(b *browser, why string) {
		t.Helper()
		p := b.get("/ui/memories")
		if p.status != http.StatusUnauthorized || !strings.Contains(p.body, "!ada web") || !strings.Contains(p.body, "for a new link") ||
			strings.Contains(p.body, "API key") {
			t.Errorf("%s: %d %q\n%.1500s", why, p.status, p.header.Get("Location"), p.body)
		}
	}
	clk.advance(30 * time.Minute)
	expired(again, "a member session idle for 30 minutes")

	operator := s.browser()
	operator.login(testKey)
	busy := login(alice)
	for range 12*3 - 1 { // a request every 20 minutes, for 12 hours less 20 minutes
		clk.advance(20 * time.Minute)
		want(t, busy.get("/ui/memories"), http.StatusOK)
	}
	want(t, operator.get("/ui/memories"), http.StatusOK) // idle for hours
	clk.advance(20 * time.Minute)
	expired(busy, "a member session in use past the 12 hours")
}
