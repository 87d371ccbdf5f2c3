package ui

import (
	"crypto/rand"
	"encoding/base64"
	"sync"
	"time"
)

// session is one logged-in browser. csrf is the token every POST form of
// the session carries; user is the room member of a member session, empty
// for the operator, and epoch the member's sessions epoch it was opened
// under (Members.SessionEpoch). seen is its last request: a member session
// idle for memberIdle ends, whatever its expiry.
type session struct {
	id      string
	csrf    string
	expires time.Time
	seen    time.Time
	user    string
	epoch   string
}

// memberIdle ends a member's session after this long without a request: a
// member's page is opened from a link on whatever device was at hand, and
// one left open there should not stay open for the whole TTL.
const memberIdle = 30 * time.Minute

// live reports whether the session may still be used at now.
func (s session) live(now time.Time) bool {
	return now.Before(s.expires) && (s.user == "" || now.Sub(s.seen) < memberIdle)
}

// sessions are held in memory, keyed by a random id that only the cookie
// carries.
type sessions struct {
	mu  sync.Mutex
	ttl time.Duration
	max int // maxSessions; smaller in tests
	by  map[string]session
}

// maxSessions bounds the sessions held: without API_KEY every new browser
// gets one, and a client that never keeps its cookie must not grow the map
// without end. Beyond it, older sessions are dropped (their owners log in
// again).
const maxSessions = 10000

func newSessions(ttl time.Duration) *sessions {
	return &sessions{ttl: ttl, max: maxSessions, by: map[string]session{}}
}

// randomToken is 32 random bytes, URL-safe.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go ≥ 1.24)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (s *sessions) create(now time.Time, user, epoch string) session {
	sess := session{id: randomToken(), csrf: randomToken(), expires: now.Add(s.ttl), seen: now, user: user, epoch: epoch}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.by { // ended sessions go when a new one comes
		if !v.live(now) || len(s.by) >= s.max {
			delete(s.by, k) // and beyond the bound, any (map order)
		}
	}
	s.by[sess.id] = sess
	return sess
}

// get returns a live session and counts the request as its use.
func (s *sessions) get(id string, now time.Time) (session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.by[id]
	if !ok || !sess.live(now) {
		delete(s.by, id)
		return session{}, false
	}
	sess.seen = now
	s.by[id] = sess
	return sess, true
}

func (s *sessions) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.by, id)
}
