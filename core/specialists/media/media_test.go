package media

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

const testToken = "s3cret-token"

// fakeProvider is a ListenBrainz-compatible server that records its requests.
type fakeProvider struct {
	t       *testing.T
	mu      sync.Mutex
	paths   []string
	playing string // JSON listens array of /playing-now
	listens string // JSON listens array of /listens
	status  int    // non-zero: answer every request with this status
	hang    bool   // block until the client gives up
}

func (f *fakeProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.paths = append(f.paths, r.URL.RequestURI())
	f.mu.Unlock()
	if got := r.Header.Get("Authorization"); got != "Token "+testToken {
		f.t.Errorf("Authorization = %q", got)
	}
	switch {
	case f.hang:
		<-r.Context().Done()
	case f.status != 0:
		http.Error(w, `{"code": 0, "error": "nope"}`, f.status)
	case strings.HasSuffix(r.URL.Path, "/playing-now"):
		fmt.Fprintf(w, `{"payload": {"count": 1, "listens": %s, "playing_now": true, "user_id": "alice"}}`, f.playing)
	case strings.HasSuffix(r.URL.Path, "/listens"):
		fmt.Fprintf(w, `{"payload": {"count": 1, "listens": %s, "user_id": "alice"}}`, f.listens)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeProvider) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.paths...)
}

var testNow = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// newTestClient starts f and returns a client for user alice whose clock
// reads *clock.
func newTestClient(t *testing.T, f *fakeProvider, clock *time.Time) *Client {
	t.Helper()
	f.t = t
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := NewClient(Options{URL: srv.URL + "/", User: "alice", Token: testToken, HTTPClient: srv.Client(), Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c.now = func() time.Time { return *clock }
	return c
}

const trackJSON = `"track_metadata": {"artist_name": "Nina Simone", "track_name": "Sinnerman", "release_name": "Pastel Blues"}`

func TestNowPlaying(t *testing.T) {
	at := func(d time.Duration) *time.Time { x := testNow.Add(-d); return &x }
	for _, tc := range []struct {
		name     string
		f        *fakeProvider
		want     core.Listening
		requests int
	}{
		{"playing", &fakeProvider{playing: `[{"playing_now": true, ` + trackJSON + `}]`},
			core.Listening{Source: "listenbrainz", Status: core.ListeningPlaying, Artist: "Nina Simone", Track: "Sinnerman", Release: "Pastel Blues"}, 1},
		{"recent", &fakeProvider{playing: `[]`, listens: fmt.Sprintf(`[{"listened_at": %d, %s}]`, testNow.Add(-5*time.Minute).Unix(), trackJSON)},
			core.Listening{Source: "listenbrainz", Status: core.ListeningRecent, Artist: "Nina Simone", Track: "Sinnerman", Release: "Pastel Blues", ListenedAt: at(5 * time.Minute)}, 2},
		{"idle with history", &fakeProvider{playing: `[]`, listens: fmt.Sprintf(`[{"listened_at": %d, %s}]`, testNow.Add(-72*time.Hour).Unix(), trackJSON)},
			core.Listening{Source: "listenbrainz", Status: core.ListeningIdle, Artist: "Nina Simone", Track: "Sinnerman", Release: "Pastel Blues", ListenedAt: at(72 * time.Hour)}, 2},
		{"idle without history", &fakeProvider{playing: `[]`, listens: `[]`},
			core.Listening{Source: "listenbrainz", Status: core.ListeningIdle}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := testNow
			c := newTestClient(t, tc.f, &clock)
			got, err := c.NowPlaying(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !sameListening(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
			reqs := tc.f.requests()
			if len(reqs) != tc.requests || reqs[0] != "/1/user/alice/playing-now" ||
				(len(reqs) == 2 && reqs[1] != "/1/user/alice/listens?count=1") {
				t.Errorf("requests = %q", reqs)
			}
		})
	}
}

func sameListening(a, b core.Listening) bool {
	if (a.ListenedAt == nil) != (b.ListenedAt == nil) || a.ListenedAt != nil && !a.ListenedAt.Equal(*b.ListenedAt) {
		return false
	}
	a.ListenedAt, b.ListenedAt = nil, nil
	return a == b
}

func TestNowPlayingCache(t *testing.T) {
	clock := testNow
	f := &fakeProvider{playing: `[{"playing_now": true, ` + trackJSON + `}]`}
	c := newTestClient(t, f, &clock)
	ctx := context.Background()
	for range 3 {
		if _, err := c.NowPlaying(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(f.requests()); n != 1 {
		t.Fatalf("%d requests within the TTL, want 1", n)
	}
	clock = clock.Add(DefaultCacheTTL)
	if _, err := c.NowPlaying(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(f.requests()); n != 2 {
		t.Fatalf("%d requests after the TTL, want 2", n)
	}
}

func TestNowPlayingErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    *fakeProvider
		want string
	}{
		{"bad token", &fakeProvider{status: 401}, "music provider request failed: the provider rejected the token (check MUSICPROVIDER_TOKEN) (HTTP 401)"},
		{"unknown user", &fakeProvider{status: 404}, `music provider request failed: the provider does not know the user "alice" (HTTP 404)`},
		{"rate limited", &fakeProvider{status: 429}, "music provider request failed: the provider is rate-limiting requests (HTTP 429)"},
		{"server error", &fakeProvider{status: 503}, "music provider request failed: the provider had an internal error (HTTP 503)"},
		{"malformed", &fakeProvider{playing: `{`}, "music provider request failed: the provider sent a malformed answer"},
		{"timeout", &fakeProvider{hang: true}, "music provider request failed: the provider did not answer in time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := testNow
			c := newTestClient(t, tc.f, &clock)
			if tc.f.hang {
				// Short only where the provider never answers: a quick
				// answer may take longer than 50 ms on a busy machine.
				c.limit = 50 * time.Millisecond
			}
			_, err := c.NowPlaying(context.Background())
			if core.KindOf(err) != core.KindUpstream || core.SafeMessage(err) != tc.want {
				t.Errorf("got %v, want %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), testToken) {
				t.Errorf("error holds the token: %v", err)
			}
			// Failures are not cached: the next call asks again.
			c.NowPlaying(context.Background())
			if n := len(tc.f.requests()); n != 2 {
				t.Errorf("%d requests after two failing calls, want 2", n)
			}
		})
	}
}

func TestUserIsEscaped(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.EscapedPath()
		if r.Header.Get("Authorization") != "" {
			t.Error("Authorization sent without a token")
		}
		fmt.Fprint(w, `{"payload": {"listens": []}}`)
	}))
	defer srv.Close()
	c, err := NewClient(Options{URL: srv.URL, User: "a b/c?d", HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.NowPlaying(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := "/1/user/a%20b%2Fc%3Fd/listens"; got != want {
		t.Errorf("path %q, want %q", got, want)
	}
}

func TestNotConfigured(t *testing.T) {
	c, err := NewClient(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Configured() || c.base != DefaultURL || c.ttl != DefaultCacheTTL {
		t.Errorf("client = %+v", c)
	}
	if _, err := c.NowPlaying(context.Background()); core.KindOf(err) != core.KindUnavailable {
		t.Errorf("got %v, want KindUnavailable", err)
	}
	s := NewSpecialist(c)
	if s.Info().Enabled {
		t.Error("specialist enabled without a user")
	}
	if _, err := s.Run(context.Background(), core.SpecialistCall{}); core.KindOf(err) != core.KindUnavailable {
		t.Errorf("Run: got %v, want KindUnavailable", err)
	}
}

func TestNewClientRejectsBadURL(t *testing.T) {
	if _, err := NewClient(Options{URL: "api.listenbrainz.org", User: "x"}); core.KindOf(err) != core.KindInvalid {
		t.Errorf("got %v", err)
	}
}

func TestListeningJSON(t *testing.T) {
	at := testNow
	for _, tc := range []struct {
		l    core.Listening
		want string
	}{
		{core.Listening{Source: Source, Status: core.ListeningIdle},
			`{"source":"listenbrainz","status":"idle","artist":"","track":"","release":"","listened_at":null}`},
		{core.Listening{Source: Source, Status: core.ListeningRecent, Artist: "A", Track: "T", Release: "R", ListenedAt: &at},
			`{"source":"listenbrainz","status":"recent","artist":"A","track":"T","release":"R","listened_at":"2025-03-01T12:00:00Z"}`},
	} {
		got, _ := json.Marshal(tc.l)
		if string(got) != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

func TestSpecialistRun(t *testing.T) {
	clock := testNow
	f := &fakeProvider{playing: `[]`, listens: fmt.Sprintf(`[{"listened_at": %d, %s}]`, testNow.Add(-12*time.Minute).Unix(), trackJSON)}
	s := NewSpecialist(newTestClient(t, f, &clock))
	info := s.Info()
	if info.Name != "media" || !info.Enabled || !json.Valid(info.InputSchema) || !json.Valid(info.OutputSchema) ||
		!strings.HasPrefix(info.Capability, "Q: ") || !strings.Contains(info.Capability, "\nA: ") {
		t.Errorf("info = %+v", info)
	}
	got, err := s.Run(context.Background(), core.SpecialistCall{Args: json.RawMessage(`{}`)})
	want := `The user is not playing anything right now, but listened to "Sinnerman" by Nina Simone from the release "Pastel Blues" 12 minutes ago (2025-03-01T11:48:00Z).`
	if err != nil || got != want {
		t.Errorf("got %q, %v\nwant %q", got, err, want)
	}
}

func TestDescribe(t *testing.T) {
	at := testNow.Add(-50 * time.Hour)
	for _, tc := range []struct {
		l    core.Listening
		want string
	}{
		{core.Listening{Status: core.ListeningPlaying, Artist: "A", Track: "T"}, `The user is listening to "T" by A right now.`},
		{core.Listening{Status: core.ListeningPlaying, Track: "T", Release: "R"}, `The user is listening to "T" from the release "R" right now.`},
		{core.Listening{Status: core.ListeningIdle, Artist: "A", Track: "T", ListenedAt: &at},
			`The user is not listening to music right now. The last track they listened to was "T" by A, 2 days ago (2025-02-27T10:00:00Z).`},
		{core.Listening{Status: core.ListeningIdle, Artist: "A", Track: "T"},
			`The user is not listening to music right now. The last track they listened to was "T" by A.`},
		{core.Listening{Status: core.ListeningIdle},
			"The user is not listening to music right now, and the music provider has no listening history for them."},
	} {
		if got := describe(tc.l, testNow); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
