package ui

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sync"
	"time"
)

// session is one logged-in browser. csrf is the token every POST form of
// the session carries; user is the room member of a member session, empty
// for the operator, and epoch the member's sessions epoch it was opened
// under (Members.SessionEpoch). seen is its last request: a member session
// idle for memberIdle ends, whatever its expiry. saved is the last use
// written to the bridge's state (a member's session, kept.go).
type session struct {
	id      string
	csrf    string
	expires time.Time
	seen    time.Time
	user    string
	epoch   string
	saved   time.Time
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

// csrfOf is a session's CSRF token, derived from its id so that a member
// session kept over a restart (kept.go) keeps it without it being stored;
// the id cannot be read back from it.
func csrfOf(id string) string {
	h := sha256.Sum256([]byte("ada memory page csrf\x00" + id))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

func (s *sessions) create(now time.Time, user, epoch string) session {
	id := randomToken()
	sess := session{id: id, csrf: csrfOf(id), expires: now.Add(s.ttl), seen: now, user: user, epoch: epoch, saved: now}
	s.put(now, sess)
	return sess
}

// put holds sess (a new one, or a member's kept one brought back).
func (s *sessions) put(now time.Time, sess session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.by { // ended sessions go when a new one comes
		if !v.live(now) || len(s.by) >= s.max {
			delete(s.by, k) // and beyond the bound, any (map order)
		}
	}
	s.by[sess.id] = sess
}

// found is what a session id names: a live session, a member's that ended
// (expired or idle: they are told how to get a new link), or nothing held.
type found int

const (
	foundNone found = iota
	foundLive
	foundMemberEnded
)

// get returns a live session and counts the request as its use.
func (s *sessions) get(id string, now time.Time) (session, found) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.by[id]
	switch {
	case !ok:
		return session{}, foundNone
	case !sess.live(now):
		delete(s.by, id)
		if sess.user != "" {
			return session{}, foundMemberEnded
		}
		return session{}, foundNone
	}
	sess.seen = now
	s.by[id] = sess
	return sess, foundLive
}

// markSaved records that the session's use at t was written.
func (s *sessions) markSaved(id string, t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.by[id]; ok {
		sess.saved = t
		s.by[id] = sess
	}
}

func (s *sessions) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.by, id)
}
