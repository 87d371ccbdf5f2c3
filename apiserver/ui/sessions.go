package ui

import (
	"crypto/rand"
	"encoding/base64"
	"sync"
	"time"
)

// session is one logged-in browser. csrf is the token every POST form of
// the session carries; user is the room member of a member session, empty
// for the operator.
type session struct {
	csrf    string
	expires time.Time
	user    string
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

func (s *sessions) create(now time.Time, user string) (string, session) {
	id, sess := randomToken(), session{csrf: randomToken(), expires: now.Add(s.ttl), user: user}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.by { // expired sessions go when a new one comes
		if !now.Before(v.expires) || len(s.by) >= s.max {
			delete(s.by, k) // and beyond the bound, any (map order)
		}
	}
	s.by[id] = sess
	return id, sess
}

func (s *sessions) get(id string, now time.Time) (session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.by[id]
	if !ok || !now.Before(sess.expires) {
		delete(s.by, id)
		return session{}, false
	}
	return sess, true
}

func (s *sessions) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.by, id)
}
