package ui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/ada-chat/ada/apiserver/keylimit"
	"github.com/ada-chat/ada/apiserver/ui"
	"github.com/ada-chat/ada/core"
)

// TestOperatorLogin: the key opens a session whose cookie is HttpOnly,
// SameSite=Strict and Secure behind https; a wrong key does not, and too
// many wrong keys lock the address out for a while; logout ends it.
func TestOperatorLogin(t *testing.T) {
	keys := keylimit.New(keylimit.Options{Trusted: keylimit.Networks{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}})
	s := newSite(t, ui.Options{APIKey: testKey, PublicURL: "https://ada.example.org", Keys: keys})
	b := s.browser()
	if p := b.get("/ui/memories"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/ui/login" {
		t.Fatalf("without a session: %d to %q, want a redirect to the login form", p.status, p.header.Get("Location"))
	}
	loginPage := b.get("/ui/login")
	want(t, loginPage, http.StatusOK, `name="key"`, `<label for="key">`)
	// Issue 40 item 14: no navigation to pages one cannot open yet.
	if strings.Contains(loginPage.body, `href="/ui/conversations"`) {
		t.Errorf("the login page shows the navigation:\n%.1500s", loginPage.body)
	}
	want(t, b.login("wrong"), http.StatusUnauthorized, "not the API key")

	p := b.login(testKey)
	if p.status != http.StatusSeeOther {
		t.Fatalf("login: %d", p.status)
	}
	cookie := p.header.Get("Set-Cookie")
	for _, attr := range []string{"HttpOnly", "SameSite=Strict", "Secure", "Max-Age=", "Path=/ui/"} {
		if !strings.Contains(cookie, attr) {
			t.Errorf("cookie %q lacks %s", cookie, attr)
		}
	}
	// The Secure cookie is not sent back over the test's http; carry it by hand.
	c := &http.Cookie{Name: "ada_ui_session", Value: strings.TrimPrefix(strings.Split(cookie, ";")[0], "ada_ui_session=")}
	u, _ := url.Parse(s.srv.URL + "/ui/")
	b.c.Jar.SetCookies(u, []*http.Cookie{c})
	want(t, b.get("/ui/memories"), http.StatusOK, "<h1>Memories</h1>", "Log out")

	csrf := b.csrf()
	if p := b.post("/ui/logout", url.Values{"csrf": {csrf}}); p.status != http.StatusSeeOther {
		t.Fatalf("logout: %d", p.status)
	}
	b.c.Jar.SetCookies(u, []*http.Cookie{c}) // the old cookie, replayed
	if p := b.get("/ui/memories"); p.status != http.StatusSeeOther {
		t.Fatalf("after logout the old cookie still opens the page: %d", p.status)
	}

	// Behind the proxy, each client has its own count.
	guesser, operator := s.browser(), s.browser()
	for range 5 {
		guesser.loginFrom("203.0.113.7", "guess")
	}
	blocked := guesser.loginFrom("203.0.113.7", testKey)
	want(t, blocked, http.StatusTooManyRequests, "Too many")
	if ra := blocked.header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("429 with Retry-After %q", ra)
	}
	if p := operator.loginFrom("198.51.100.2", testKey); p.status != http.StatusSeeOther {
		t.Fatalf("another client behind the proxy is locked out too: %d", p.status)
	}
	other := s.browser()
	for range 5 {
		other.login("guess")
	}
	want(t, other.login(testKey), http.StatusTooManyRequests, "Too many")
}

// TestProxyHeaderOnlyFromTrustedProxies: without TRUSTED_PROXIES the
// client's X-Real-IP is its own claim, loopback included: a guesser who
// names a fresh address with each guess still uses up its own count.
func TestProxyHeaderOnlyFromTrustedProxies(t *testing.T) {
	s := newSite(t, ui.Options{APIKey: testKey})
	guesser := s.browser()
	for i := range 5 {
		guesser.loginFrom(fmt.Sprintf("203.0.113.%d", i), "guess")
	}
	want(t, guesser.loginFrom("198.51.100.2", testKey), http.StatusTooManyRequests, "Too many")
}

// TestOpenWithoutKey: with no API_KEY the page is open, as the API is, and
// the cookie is not Secure over plain http.
func TestOpenWithoutKey(t *testing.T) {
	s := newSite(t, ui.Options{})
	b := s.browser()
	p := b.get("/ui/memories")
	want(t, p, http.StatusOK, "<h1>Memories</h1>")
	if c := p.header.Get("Set-Cookie"); strings.Contains(c, "Secure") || !strings.Contains(c, "HttpOnly") {
		t.Errorf("cookie %q", c)
	}
	// Nothing to log out of: the next visit is let in again.
	if strings.Contains(p.body, "Log out") {
		t.Errorf("the open page offers to log out:\n%s", p.body)
	}
}

// TestLogOutWithKey: with API_KEY the logged-in page offers to log out.
func TestLogOutWithKey(t *testing.T) {
	s := newSite(t, ui.Options{APIKey: testKey})
	b := s.browser()
	b.login(testKey)
	want(t, b.get("/ui/memories"), http.StatusOK, "<h1>Memories</h1>", "Log out")
}

// TestSafetyHeadersAndNotFound: every answer has the CSP and the other
// security headers; an unknown page is a 404 page.
func TestSafetyHeadersAndNotFound(t *testing.T) {
	s := newSite(t, ui.Options{APIKey: testKey})
	b := s.browser()
	p := b.get("/ui/nothing-here")
	want(t, p, http.StatusNotFound, "There is no such page")
	if csp := p.header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "script-src 'none'") {
		t.Errorf("CSP %q", csp)
	}
	for h, v := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"} {
		if got := p.header.Get(h); got != v {
			t.Errorf("%s: %q, want %q", h, got, v)
		}
	}
	b.login(testKey)
	want(t, b.get("/ui/memories/doc-00000000-0000-0000-0000-000000000000"), http.StatusNotFound)
	css := b.get("/ui/style.css")
	if css.status != http.StatusOK || !strings.HasPrefix(css.header.Get("Content-Type"), "text/css") {
		t.Errorf("stylesheet: %d %q", css.status, css.header.Get("Content-Type"))
	}
}

// TestCSRFRefusalChangesNothing: an edit or a forget without the session's
// csrf field, or with another one, is 403 and the memory stays as it was.
func TestCSRFRefusalChangesNothing(t *testing.T) {
	s := newSite(t, ui.Options{APIKey: testKey})
	m := s.remember(core.MemoryInput{Text: "The spare key is under the blue pot"})
	b := s.browser()
	b.login(testKey)
	edit := url.Values{"text": {"changed"}, "importance": {"5"}, "tags": {""}, "expires": {""}}
	for _, token := range []string{"", "forged-token"} {
		form := url.Values{"reason": {"test"}}
		for k, v := range edit {
			form[k] = v
		}
		if token != "" {
			form.Set("csrf", token)
		}
		want(t, b.post("/ui/memories/"+m.ID, form), http.StatusForbidden, "nothing was changed")
		want(t, b.post("/ui/memories/"+m.ID+"/forget", form), http.StatusForbidden, "nothing was changed")
	}
	got, err := s.svc.GetMemory(context.Background(), m.ID)
	if err != nil || got.Text != m.Text || got.Meta.Importance != m.Meta.Importance {
		t.Fatalf("after refused forms: %+v, %v", got, err)
	}
	hist, _ := s.svc.MemoryHistory(context.Background(), m.ID)
	if len(hist) != 1 {
		t.Errorf("history %+v, want only its creation", hist)
	}
}

// TestStoredTextIsEscaped: a memory holding markup shows as those
// characters, in the list, on its page and in its edit form.
func TestStoredTextIsEscaped(t *testing.T) {
	s := newSite(t, ui.Options{APIKey: testKey})
	m := s.remember(core.MemoryInput{Text: `<img src=x onerror=alert(1)>`, Tags: []string{`"><script>`}})
	b := s.browser()
	b.login(testKey)
	for _, path := range []string{"/ui/memories", "/ui/memories/" + m.ID, "/ui/memories?q=" + url.QueryEscape("<img src=x>")} {
		p := b.get(path)
		want(t, p, http.StatusOK, "&lt;img src=x onerror=alert(1)&gt;")
		if strings.Contains(p.body, "<img") || strings.Contains(p.body, "<script") {
			t.Errorf("%s renders stored markup", path)
		}
	}
}

// TestPagingFiltersAndSearch: the list pages newest first with a count;
// filters narrow it; a search shows each hit's reasons.
func TestPagingFiltersAndSearch(t *testing.T) {
	s := newSite(t, ui.Options{APIKey: testKey})
	for i := range 60 {
		imp := 2
		if i%20 == 0 {
			imp = 5
		}
		s.remember(core.MemoryInput{Text: fmt.Sprintf("Note number %d about topic %c%c", i, 'a'+i%26, 'a'+i/26), Importance: &imp})
	}
	room := s.remember(core.MemoryInput{Text: "The book club meets on Thursdays", RoomID: "!club:example.org", Source: core.SourceChat})
	b := s.browser()
	b.login(testKey)

	first := b.get("/ui/memories")
	want(t, first, http.StatusOK, "61 memories, newest first; 50 on this page", "The book club meets on Thursdays", `rel="next"`)
	next := nextLink.FindStringSubmatch(first.body)
	if next == nil {
		t.Fatal("no next link")
	}
	second := b.get(strings.ReplaceAll(next[1], "&amp;", "&"))
	want(t, second, http.StatusOK, "11 on this page", "Note number 0 ")
	if strings.Contains(second.body, `rel="next"`) {
		t.Error("the last page links to a next one")
	}

	want(t, b.get("/ui/memories?importance=5"), http.StatusOK, "3 memories", "Note number 40 ", "Note number 20 ", "Note number 0 ")
	roomPage := b.get("/ui/memories?scope=room")
	want(t, roomPage, http.StatusOK, "1 memories", room.Text)
	want(t, b.get("/ui/memories?from=2000-01-01&to=2000-12-31"), http.StatusOK, "0 memories", "No memories.")
	want(t, b.get("/ui/memories?importance=9"), http.StatusBadRequest, "importance")

	hit := b.get("/ui/memories?q=" + url.QueryEscape("book club Thursdays"))
	want(t, hit, http.StatusOK, "Best", room.Text, "keyword #1", "meaning #", "importance ", "recency ")
	if strings.Contains(hit.body, ", time ") {
		t.Error("a search naming no time shows a time bonus")
	}
	// A search naming a date shows which memory's time matched it.
	dated := s.remember(core.MemoryInput{Text: "The book club read Dune on 13 October 2025"})
	hit = b.get("/ui/memories?q=" + url.QueryEscape("what did the book club read on 13 October 2025"))
	want(t, hit, http.StatusOK, dated.Text, ", time ", "overlapping the prompt")
}

var nextLink = regexp.MustCompile(`<a href="([^"]+)" rel="next">`)

// TestEditForgetAndForgotten: the form edits text, importance, tags and
// expiry; forgetting takes the memory away (as the API's delete) with the
// reason, and the forgotten list shows when and why without the text.
func TestEditForgetAndForgotten(t *testing.T) {
	ctx := context.Background()
	s := newSite(t, ui.Options{APIKey: testKey})
	m := s.remember(core.MemoryInput{Text: "Sam prefers tea over coffee"})
	b := s.browser()
	b.login(testKey)
	csrf := b.csrf()
	p := b.post("/ui/memories/"+m.ID, url.Values{"csrf": {csrf}, "text": {"Sam prefers green tea"}, "importance": {"5"}, "tags": {"drinks, sam"}, "expires": {"2099-01-31"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", p.status, p.body)
	}
	got, err := s.svc.GetMemory(ctx, m.ID)
	if err != nil || got.Text != "Sam prefers green tea" || got.Meta.Importance != 5 || strings.Join(got.Meta.Tags, ",") != "drinks,sam" ||
		got.Meta.ExpiresAt == nil || got.Meta.ExpiresAt.Format("2006-01-02") != "2099-01-31" {
		t.Fatalf("after the edit: %+v %v", got, err)
	}
	want(t, b.get(p.header.Get("Location")), http.StatusOK, "Saved.", "edited", "created")
	want(t, b.post("/ui/memories/"+m.ID, url.Values{"csrf": {csrf}, "text": {"x"}, "importance": {"9"}}), http.StatusBadRequest, "importance")

	p = b.post("/ui/memories/"+m.ID+"/forget", url.Values{"csrf": {csrf}, "reason": {"Sam asked me to"}})
	if p.status != http.StatusSeeOther {
		t.Fatalf("forget: %d %s", p.status, p.body)
	}
	if _, err := s.svc.GetMemory(ctx, m.ID); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("forgotten memory still there: %v", err)
	}
	gone := b.get("/ui/forgotten")
	want(t, gone, http.StatusOK, "Sam asked me to", m.ID, "forgotten")
	if strings.Contains(gone.body, "green tea") {
		t.Error("the forgotten list shows the text")
	}
}

// TestLoginOverPlainHTTPUnderHTTPS: with an https PUBLIC_URL the session
// cookie is Secure, which a browser on a plain http page does not keep: a
// login sent from such a page (its Origin says http) is told why and where
// to go, instead of going round to the login page again; nothing is
// counted against the client and no session is made.
func TestLoginOverPlainHTTPUnderHTTPS(t *testing.T) {
	s := newSite(t, ui.Options{APIKey: testKey, PublicURL: "https://ada.example.org"})
	b := s.browser()
	req, err := http.NewRequest(http.MethodPost, s.srv.URL+"/ui/login", strings.NewReader(url.Values{"key": {testKey}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://ada.example.org")
	resp, err := b.c.Do(req)
	p := read(t, resp, err)
	want(t, p, http.StatusBadRequest, "plain http", "https://ada.example.org/ui/login")
	if c := p.header.Get("Set-Cookie"); c != "" {
		t.Errorf("a cookie the browser will drop: %q", c)
	}
	// Over https (as the proxy serves it) the same login works.
	req, _ = http.NewRequest(http.MethodPost, s.srv.URL+"/ui/login", strings.NewReader(url.Values{"key": {testKey}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://ada.example.org")
	resp, err = b.c.Do(req)
	if p := read(t, resp, err); p.status != http.StatusSeeOther || !strings.Contains(p.header.Get("Set-Cookie"), "Secure") {
		t.Errorf("login from the https page: %d %v", p.status, p.header)
	}
}

// TestLoginOverPlainHTTPBehindProxy: a browser that names no Origin (the
// page's Referrer-Policy makes it send "null") is still told, when the
// proxy says the request came over plain http.
func TestLoginOverPlainHTTPBehindProxy(t *testing.T) {
	s := newSite(t, ui.Options{APIKey: testKey, PublicURL: "https://ada.example.org"})
	req, err := http.NewRequest(http.MethodPost, s.srv.URL+"/ui/login", strings.NewReader(url.Values{"key": {testKey}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "null")
	req.Header.Set("X-Forwarded-Proto", "http")
	resp, err := s.browser().c.Do(req)
	want(t, read(t, resp, err), http.StatusBadRequest, "plain http")
}

// TestSecureCookieBehindATrustedProxy: the cookie is Secure when a proxy
// named in TRUSTED_PROXIES says the client came over https, even without
// an https PUBLIC_URL; the same header from anyone else is ignored.
func TestSecureCookieBehindATrustedProxy(t *testing.T) {
	trusting := keylimit.New(keylimit.Options{Trusted: keylimit.Networks{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}})
	for _, tc := range []struct {
		name   string
		keys   *keylimit.Limiter
		proto  string
		secure bool
	}{
		{"trusted proxy, https", trusting, "https", true},
		{"trusted proxy, http", trusting, "http", false},
		{"untrusted peer, https", nil, "https", false},
	} {
		s := newSite(t, ui.Options{Keys: tc.keys})
		req, err := http.NewRequest(http.MethodGet, s.srv.URL+"/ui/memories", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Forwarded-Proto", tc.proto)
		resp, err := http.DefaultClient.Do(req)
		p := read(t, resp, err)
		if c := p.header.Get("Set-Cookie"); c == "" || strings.Contains(c, "Secure") != tc.secure {
			t.Errorf("%s: cookie %q, want Secure %v", tc.name, c, tc.secure)
		}
	}
}
