package apiserver

import (
	"bytes"
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"github.com/valyala/fasthttp"
)

// withUI sends /ui and /ui/… to the memory page, a net/http handler with its
// own sessions and logins, before the API's router: the page is not an API
// route (the route table is checked against openapi.json). It still runs
// in the API's envelope (wrap, through serveHTTP like /mcp): a request id,
// REQUEST_TIMEOUT_SECONDS, cancelled when the client leaves, waited for at
// shutdown, counted in the metrics under the route "/ui/", one log line.
// It is public to wrap: the page checks its own sessions and logins.
func (s *Server) withUI(api fasthttp.RequestHandler) fasthttp.RequestHandler {
	if s.deps.UI == nil {
		return api
	}
	ui := s.wrap(uiRoute, func(r *request) error { return s.serveHTTP(r, s.deps.UI, r.ctx) }, nil, writeError)
	return func(c *fasthttp.RequestCtx) {
		if p := c.Path(); bytes.Equal(p, []byte("/ui")) || bytes.HasPrefix(p, []byte("/ui/")) {
			ui(c)
			return
		}
		api(c)
	}
}

// uiRoute is the page's label in the metrics.
const uiRoute = "/ui/"

// memberLink is a member's one-time login link in a path or in a quoted
// request.
var memberLink = regexp.MustCompile(`/ui/login/[^\s"\\?#/]+`)

// memberLinkPrefix starts every member link (memberLink).
const memberLinkPrefix = "/ui/login/"

// redactLinks takes the token out of every member link in s, for a log:
// fasthttp's errors quote the request they could not parse. Every request's
// path is logged, and almost none is a member link: a plain search says so
// before the pattern runs.
func redactLinks(s string) string {
	if !strings.Contains(s, memberLinkPrefix) {
		return s
	}
	return memberLink.ReplaceAllString(s, memberLinkPrefix+"…")
}

// fasthttpLog sends fasthttp's own messages (a connection's error, which
// the ErrorHandler also logs) to the program's log at DEBUG, without
// member links, instead of to stderr.
type fasthttpLog struct{ log *slog.Logger }

func (l fasthttpLog) Printf(format string, args ...any) {
	l.log.Debug("http server", "message", redactLinks(fmt.Sprintf(format, args...)))
}
