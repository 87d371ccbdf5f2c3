package ui_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/apiserver/ui"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
)

const testKey = "operator-key-123"

// site is the page over a real core and a real SQLite store.
type site struct {
	t   *testing.T
	svc *core.Service
	db  *storage.DB
	srv *httptest.Server
}

func newSite(t *testing.T, opt ui.Options) *site {
	t.Helper()
	return newSiteWith(t, func(*storage.DB) ui.Options { return opt })
}

// newSiteWith is newSite with options that use the store (the bridge's links).
func newSiteWith(t *testing.T, options func(*storage.DB) ui.Options) *site {
	t.Helper()
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}}, core.DefaultOptions())
	t.Cleanup(svc.Close)
	srv := httptest.NewServer(ui.Handler(svc, options(db)))
	t.Cleanup(srv.Close)
	return &site{t: t, svc: svc, db: db, srv: srv}
}

// browser is one client with its own cookies; it does not follow
// redirects, so tests see them.
type browser struct {
	s *site
	c *http.Client
}

func (s *site) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{s: s, c: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is one answer: status, headers and body.
type page struct {
	status int
	header http.Header
	body   string
}

func (b *browser) get(path string) page {
	b.s.t.Helper()
	resp, err := b.c.Get(b.s.srv.URL + path)
	return read(b.s.t, resp, err)
}

func (b *browser) post(path string, form url.Values) page {
	b.s.t.Helper()
	resp, err := b.c.PostForm(b.s.srv.URL+path, form)
	return read(b.s.t, resp, err)
}

func read(t *testing.T, resp *http.Response, err error) page {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return page{status: resp.StatusCode, header: resp.Header, body: string(body)}
}

func (b *browser) login(key string) page {
	return b.post("/ui/login", url.Values{"key": {key}})
}

// loginFrom logs in through a proxy on loopback that names the client in
// X-Real-IP, as deploy/nginx does.
func (b *browser) loginFrom(client, key string) page {
	b.s.t.Helper()
	req, err := http.NewRequest(http.MethodPost, b.s.srv.URL+"/ui/login", strings.NewReader(url.Values{"key": {key}}.Encode()))
	if err != nil {
		b.s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Real-IP", client)
	resp, err := b.c.Do(req)
	return read(b.s.t, resp, err)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf reads the session's token from a page's form.
func (b *browser) csrf() string {
	b.s.t.Helper()
	p := b.get("/ui/memories")
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		b.s.t.Fatalf("no csrf field on the memory list (status %d)", p.status)
	}
	return m[1]
}

func want(t *testing.T, p page, status int, contains ...string) {
	t.Helper()
	if p.status != status {
		t.Fatalf("status %d, want %d; body:\n%.2000s", p.status, status, p.body)
	}
	for _, c := range contains {
		if !strings.Contains(p.body, c) {
			t.Errorf("page lacks %q:\n%.3000s", c, p.body)
		}
	}
}

func (s *site) remember(in core.MemoryInput) core.Memory {
	s.t.Helper()
	m, err := s.svc.CreateMemory(context.Background(), in)
	if err != nil {
		s.t.Fatal(err)
	}
	return m
}

// turn stores one user turn of a room's conversation.
func (s *site) turn(conv, room, user, text string) {
	s.t.Helper()
	idx := 0
	d := core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text),
		Meta: core.Metadata{Type: core.DocTurn, Timestamp: time.Now(), Source: core.SourceChat, Scope: core.ScopeGlobal,
			ConversationID: conv, Role: "user", TurnIndex: &idx, RoomID: room, UserID: user}}
	if err := s.db.Put(context.Background(), d); err != nil {
		s.t.Fatal(err)
	}
}

// linkToken is a token of the shape the bridge issues (32 bytes,
// base64url), made from name.
func linkToken(name string) string {
	h := sha256.Sum256([]byte(name))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// members is a small Members: tokens to spend, who is in which room, the
// rooms' names, and each member's sessions epoch (none yet: "").
type members struct {
	mu     sync.Mutex
	tokens map[string]string
	rooms  map[string][]string
	names  map[string]string
	epochs map[string]string
}

func (m *members) LinkOpen(_ context.Context, token string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.tokens[token]
	return ok, nil
}

func (m *members) RoomNames(_ context.Context, rooms []string) map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]string{}
	for _, r := range rooms {
		if n, ok := m.names[r]; ok {
			out[r] = n
		}
	}
	return out
}

func (m *members) Redeem(_ context.Context, token string) (string, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	user, ok := m.tokens[token]
	if !ok {
		return "", "", core.Errorf(core.KindNotFound, "no such link")
	}
	delete(m.tokens, token)
	return user, m.epochs[user], nil
}

func (m *members) SessionEpoch(_ context.Context, user string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.epochs[user], nil
}

// endSessions is what `!ada web logout` does to the bridge's state.
func (m *members) endSessions(user string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.epochs == nil {
		m.epochs = map[string]string{}
	}
	m.epochs[user] += "+"
}

func (m *members) JoinedRooms(_ context.Context, user string) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rooms[user], nil
}

func (m *members) leave(user string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rooms[user] = nil
}
