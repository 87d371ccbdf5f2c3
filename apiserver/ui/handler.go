package ui

import (
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ada-chat/ada/apiserver/keylimit"
	"github.com/ada-chat/ada/core"
)

// Options configure the page; cmd/ada passes the loaded settings.
type Options struct {
	// APIKey is the operator's key (API_KEY); empty leaves the page open,
	// as the API is.
	APIKey string
	// PublicURL is where people reach Ada (PUBLIC_URL); an https address
	// marks the session cookie Secure.
	PublicURL string
	Log       *slog.Logger
	// SessionTTL is how long a login lasts; zero means 12 hours.
	SessionTTL time.Duration
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
	// Members redeems member links and knows who is in which room; nil
	// refuses member links with a page that says so.
	Members Members
	// Origins links a room memory to the message it came from; nil links
	// to the room only.
	Origins Origins
	// AIName names Ada's turns in conversations (AI_NAME); empty means "Ada".
	AIName string
	// Keys counts failed logins per client address, shared with the API's
	// key check (cmd/ada builds one for both); nil builds one of the page's
	// own that trusts no proxy.
	Keys *keylimit.Limiter
}

const (
	cookieName = "ada_ui_session"
	// csp allows only the page's own origin; there is no script at all.
	csp = "default-src 'self'; script-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)

type page struct {
	svc      Service
	opt      Options
	sessions *sessions
	keeper   SessionKeeper // nil: member sessions end at a restart
	keys     *keylimit.Limiter
	secure   bool
}

// Handler serves every path under /ui/.
func Handler(svc Service, opt Options) http.Handler {
	if opt.SessionTTL <= 0 {
		opt.SessionTTL = 12 * time.Hour
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	if opt.AIName == "" {
		opt.AIName = "Ada"
	}
	if opt.Keys == nil {
		opt.Keys = keylimit.New(keylimit.Options{})
	}
	p := &page{svc: svc, opt: opt, sessions: newSessions(opt.SessionTTL),
		keys: opt.Keys, secure: strings.HasPrefix(opt.PublicURL, "https://")}
	p.keeper, _ = opt.Members.(SessionKeeper)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ui/{$}", p.home)
	mux.HandleFunc("GET /ui", p.home)
	mux.HandleFunc("GET /ui/login", p.loginForm)
	mux.HandleFunc("POST /ui/login", p.login)
	mux.HandleFunc("GET /ui/login/{token}", p.memberLinkForm)
	mux.HandleFunc("POST /ui/login/{token}", p.memberLogin)
	mux.HandleFunc("POST /ui/logout", p.authed(p.logout))
	mux.HandleFunc("GET /ui/memories", p.authed(p.memories))
	mux.HandleFunc("GET /ui/memories/{id}", p.authed(p.memory))
	mux.HandleFunc("POST /ui/memories/{id}", p.authed(p.edit))
	mux.HandleFunc("POST /ui/memories/{id}/forget", p.authed(p.forget))
	mux.HandleFunc("GET /ui/conversations", p.authed(p.conversations))
	mux.HandleFunc("GET /ui/conversations/{id}", p.authed(p.conversation))
	mux.HandleFunc("GET /ui/forgotten", p.authed(p.forgotten))
	mux.HandleFunc("GET /ui/export", p.authed(p.export))
	mux.HandleFunc("GET /ui/style.css", p.style)
	mux.HandleFunc("/ui/", func(w http.ResponseWriter, r *http.Request) {
		p.fail(w, r, viewer{}, http.StatusNotFound, "There is no such page.")
	})
	return p.headers(mux)
}

// headers set what every answer of the page carries, and turn a panic
// into the page's own 500 page. (The API's envelope, apiserver/ui_host.go,
// would recover it too, but answer JSON, and the page is not always run
// inside it: tests serve it alone.)
func (p *page) headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		defer func() {
			if v := recover(); v != nil {
				// The route pattern, not the path: a member link's path holds its token.
				p.opt.Log.Error("memory page: panic", "route", r.Pattern, "panic", v, "stack", string(debug.Stack()))
				p.fail(w, r, viewer{}, http.StatusInternalServerError, "Something went wrong on Ada's side; it is logged.")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// current returns the request's session. Without an API key every browser
// gets one on its first visit: the page is open, but its forms still need
// the session's CSRF token.
//
// A member's session that ended (expired, or idle) is foundMemberEnded:
// they are told to ask for a new link, not for the operator's key.
func (p *page) current(w http.ResponseWriter, r *http.Request) (session, found) {
	f := foundNone
	if c, err := r.Cookie(cookieName); err == nil {
		var s session
		if s, f = p.session(r.Context(), c.Value); f == foundLive {
			return s, f
		}
	}
	if p.opt.APIKey == "" {
		return p.start(w, r, "", ""), foundLive
	}
	return session{}, f
}

// start opens a session (an operator's when user is empty; a member's
// under their sessions epoch) and sets its cookie.
func (p *page) start(w http.ResponseWriter, r *http.Request, user, epoch string) session {
	s := p.sessions.create(p.opt.Now(), user, epoch)
	p.keep(r.Context(), s)
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.id, Path: "/ui/", Expires: s.expires,
		MaxAge: int(p.opt.SessionTTL / time.Second), HttpOnly: true, Secure: p.secureFor(r), SameSite: http.SameSiteStrictMode})
	return s
}

type authedHandler func(w http.ResponseWriter, r *http.Request, v viewer)

// authed lets only a session in; a POST must also carry its csrf field,
// or nothing happens and the answer is 403. A member's rooms are asked
// for at every request, so leaving a room ends access to it at once.
func (p *page) authed(h authedHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		s, f := p.current(w, r)
		if f == foundMemberEnded {
			p.fail(w, r, viewer{}, http.StatusUnauthorized, memberSessionExpired)
			return
		}
		if f != foundLive {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
				return
			}
			p.fail(w, r, viewer{}, http.StatusUnauthorized, "Log in first.")
			return
		}
		v, err := p.viewerOf(r.Context(), s)
		if err != nil {
			if core.KindOf(err) == core.KindUnauthorized { // the session was ended
				s = session{}
			}
			p.failErr(w, r, viewer{s: s}, err)
			return
		}
		if r.Method == http.MethodPost {
			got := r.PostFormValue("csrf")
			if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(s.csrf)) != 1 {
				p.fail(w, r, v, http.StatusForbidden, "The form was not sent from this page (missing or wrong csrf field); nothing was changed. Reload the page and try again.")
				return
			}
		}
		if !validForm(r) {
			p.fail(w, r, v, http.StatusBadRequest, "The form or the address holds bytes that are not UTF-8 text; nothing was changed.")
			return
		}
		h(w, r, v)
	}
}

// validForm reports whether every name and value of the query and the
// form is UTF-8: a JSON body cannot carry anything else (the API's decoder
// replaces bad bytes), but a form can, and core checks only some fields.
func validForm(r *http.Request) bool {
	if err := r.ParseForm(); err != nil {
		return false
	}
	for k, vs := range r.Form {
		if !utf8.ValidString(k) {
			return false
		}
		for _, s := range vs {
			if !utf8.ValidString(s) {
				return false
			}
		}
	}
	return true
}

func (p *page) home(w http.ResponseWriter, r *http.Request) {
	if _, f := p.current(w, r); f != foundNone {
		http.Redirect(w, r, "/ui/memories", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}

func (p *page) loginForm(w http.ResponseWriter, r *http.Request) {
	if p.opt.APIKey == "" {
		p.home(w, r)
		return
	}
	p.render(w, http.StatusOK, "login", view{Title: "Log in"})
}

// login checks the key (form field "key"). Neither the key nor the cookie
// is ever logged.
func (p *page) login(w http.ResponseWriter, r *http.Request) {
	if p.opt.APIKey == "" {
		p.home(w, r)
		return
	}
	client, ok := p.loginGate(w, r, func() {
		p.render(w, http.StatusTooManyRequests, "login", view{Title: "Log in", Error: "Too many wrong keys: wait a minute and try again."})
	})
	if !ok {
		return
	}
	key := r.PostFormValue("key")
	if subtle.ConstantTimeCompare([]byte(key), []byte(p.opt.APIKey)) != 1 {
		p.keys.Fail(client)
		p.opt.Log.Warn("memory page: wrong key", "remote", client)
		p.render(w, http.StatusUnauthorized, "login", view{Title: "Log in", Error: "That is not the API key."})
		return
	}
	p.start(w, r, "", "")
	http.Redirect(w, r, "/ui/memories", http.StatusSeeOther)
}

func (p *page) logout(w http.ResponseWriter, r *http.Request, _ viewer) {
	if c, err := r.Cookie(cookieName); err == nil {
		p.drop(r.Context(), c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/ui/", MaxAge: -1, HttpOnly: true, Secure: p.secureFor(r), SameSite: http.SameSiteStrictMode})
	if p.opt.APIKey == "" {
		p.render(w, http.StatusOK, "loggedout", view{Title: "Logged out"})
		return
	}
	http.Redirect(w, r, "/ui/login", http.StatusSeeOther)
}

// loginGate is what both logins (the key's and a member link's) check
// first: a form another site sent is refused (403), and a client address
// that used up its failures, at any door (the API's key counts too), gets
// tooMany's 429 answer with Retry-After. It returns the client to count a
// failure against, or false once it answered.
func (p *page) loginGate(w http.ResponseWriter, r *http.Request, tooMany func()) (string, bool) {
	if crossSite(r) {
		p.fail(w, r, viewer{}, http.StatusForbidden, crossSiteLogin)
		return "", false
	}
	if p.secure && plainHTTP(r) {
		p.fail(w, r, viewer{}, http.StatusBadRequest, fmt.Sprintf(plainHTTPLogin, strings.TrimSuffix(p.opt.PublicURL, "/")+"/ui/login"))
		return "", false
	}
	client := p.keys.Client(r.RemoteAddr, r.Header.Get)
	if wait := p.keys.Blocked(client); wait > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(keylimit.RetryAfter(wait)))
		tooMany()
		return "", false
	}
	return client, true
}

// plainHTTPLogin answers a login sent from a page the browser opened over
// plain http while PUBLIC_URL is https: the session cookie is then Secure,
// and a browser keeps no Secure cookie from an http page, so the login
// would only lead back to the login form.
const plainHTTPLogin = "This page was opened over plain http, but Ada's address (PUBLIC_URL) is https, so its login cookie is marked Secure and your browser will not keep it here. Nothing was done. Log in at %s instead."

// plainHTTP reports a request the browser sent over plain http. Ada itself
// always sees plain http (a proxy in front ends TLS), so it goes by what
// the browser and the proxy say: the form's Origin (when the page's
// Referrer-Policy lets the browser name it), or the proxy's
// X-Forwarded-Proto (deploy/nginx sets it). Believing either from anyone
// is safe here: a false claim only refuses its sender's own login.
func plainHTTP(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("Origin"), "http://") || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "http")
}

const crossSiteLogin = "This login was sent from another site; nothing was done. Open the page yourself and log in there."

// crossSite reports a form another site's page sent (login CSRF: it would
// log the browser into someone else's session). Browsers name the sender
// in Sec-Fetch-Site; a client that does not is not a browser, and is let
// through.
func crossSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return false
	}
	return true
}

// secureFor reports whether the session cookie is marked Secure: always
// when PUBLIC_URL is https, and whenever the request came over https, to Ada
// itself or to a proxy named in TRUSTED_PROXIES that says so in
// X-Forwarded-Proto (deploy/nginx sets it; from anyone else it is ignored).
func (p *page) secureFor(r *http.Request) bool {
	return p.secure || p.keys.Scheme(r.RemoteAddr, r.TLS != nil, r.Header.Get) == "https"
}
