package apiserver

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ada-chat/ada/apiserver/keylimit"
	"github.com/ada-chat/ada/core"
)

// request is what a handler gets: the fasthttp request, a real context that
// ends at the request timeout or server shutdown, and a logger carrying the
// request id.
type request struct {
	*fasthttp.RequestCtx
	requestEnd
	id string
	// handedOff: a body stream writer owns the request's end (handOff).
	handedOff bool
}

// requestEnd is what ending a request needs, captured when it starts: its
// context and cancel, its logger, and what its log line says. It is a value
// without the fasthttp context, so that a stream writer, which runs after
// the handler returned (when that context may already serve another
// request), can end the request without touching it.
type requestEnd struct {
	ctx    context.Context
	cancel context.CancelFunc
	// clientGone ends ctx with errClientGone as its cause, so the request
	// is answered and logged as a client that left, not as a failure.
	clientGone   func()
	log          *slog.Logger
	method, path string
	// client is the client's address (clientAddr), for the log line.
	client string
	start  time.Time
	// left uncounts the request from the running ones (see inflight).
	left func()
	// route is the route's pattern, the label of its metrics.
	route   string
	metrics Metrics
}

// handOff gives the request's end to a body stream writer: the middleware
// then neither cancels nor logs it; the writer calls finish.
func (r *request) handOff() requestEnd {
	r.handedOff = true
	return r.requestEnd
}

// finish cancels the request's context and writes its one log line with
// its real outcome: the status sent, or for a stream that failed after its
// 200, the status the failure would have had (499 for a client that left).
func (e requestEnd) finish(status int, err error) {
	e.cancel()
	if e.left != nil {
		defer e.left()
	}
	if err != nil && status < 400 {
		status = statusOf(err)
	}
	attrs := []any{"method", e.method, "path", e.path, "client", e.client, "status", status,
		"duration_ms", float64(time.Since(e.start).Microseconds()) / 1000}
	if err != nil {
		attrs = append(attrs, "error", err.Error())
	}
	e.log.Log(context.Background(), logLevel(status, err), "request", attrs...)
	e.metrics.Request(e.route, e.method, status, time.Since(e.start))
}

type handlerFunc func(r *request) error

// errorRenderer writes an error response in a route's error shape and
// returns its status.
type errorRenderer func(c *fasthttp.RequestCtx, err error) int

func newRequestID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// wrap turns a handler into a fasthttp handler: request id, context, auth
// (nil for a public route), panic recovery, error rendering and exactly one
// log line per request.
// fasthttp recovers nothing itself, and its RequestCtx is not cancelled when
// the client goes away, so both are done here.
func (s *Server) wrap(pattern string, h handlerFunc, auth func(*fasthttp.RequestCtx) error, render errorRenderer) fasthttp.RequestHandler {
	return func(c *fasthttp.RequestCtx) {
		start := time.Now()
		id := newRequestID()
		tctx, tcancel := context.WithTimeoutCause(s.baseCtx, s.cfg.RequestTimeout, errTimedOut)
		ctx, cancelCause := context.WithCancelCause(tctx)
		cancel := func() { cancelCause(nil); tcancel() }
		log := s.log.With("request_id", id)
		// The request's logger travels in its context, so that what core
		// logs for the request carries its id. The logged path never holds
		// a member link's token (the page runs in this envelope too).
		ctx = core.WithLogger(ctx, log)
		r := &request{RequestCtx: c, id: id, requestEnd: requestEnd{ctx: ctx, cancel: cancel,
			clientGone: func() { cancelCause(errClientGone) }, log: log,
			method: string(c.Method()), path: redactLinks(string(c.Path())), client: s.clientAddr(c), start: start, route: pattern, metrics: s.deps.Metrics}}
		c.Response.Header.Set("X-Request-ID", id)
		var err error
		if s.running.enter() {
			r.left = s.running.leave
		} else {
			// Draining for a shutdown: running requests finish, new ones
			// are told to come back.
			err = errShuttingDown
			c.SetConnectionClose()
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
				}
			}()
			if err != nil {
				return
			}
			if auth != nil {
				if err = auth(c); err != nil {
					return
				}
			}
			err = h(r)
		}()
		err = s.whyEnded(ctx, err)
		if r.handedOff && err == nil {
			return // the stream writer ends the request
		}
		status := c.Response.StatusCode()
		if err != nil {
			c.Response.ResetBody()
			status = render(c, err)
		}
		r.finish(status, err)
	}
}

// logLevel is the one rule for a request's log line, on every route and on
// streams: success INFO; a client's mistake (4xx), a client that left or a
// restart WARN; an upstream or internal failure (5xx) ERROR.
func logLevel(status int, err error) slog.Level {
	switch {
	case err == nil:
		return slog.LevelInfo
	case errors.Is(err, errShuttingDown), errors.Is(err, errClientGone):
		return slog.LevelWarn
	case status >= 500:
		return slog.LevelError
	default:
		return slog.LevelWarn
	}
}

// authorize enforces API_KEY (when set) with a constant-time comparison,
// counting wrong keys per client address with the page's logins
// (Deps.Keys): an address over the limit gets 429 before its key is looked
// at, a right key included, or a guesser would learn which guess was right.
func (s *Server) authorize(c *fasthttp.RequestCtx) error {
	if s.cfg.APIKey == "" {
		return nil
	}
	client := s.clientOf(c)
	if wait := s.deps.Keys.Blocked(client); wait > 0 {
		return &tooManyKeys{wait: wait}
	}
	if !s.hasKey(c) {
		s.deps.Keys.Fail(client)
		c.Response.Header.Set("WWW-Authenticate", "Bearer")
		return core.Errorf(core.KindUnauthorized, "missing or invalid API key: send Authorization: Bearer <API_KEY>")
	}
	return nil
}

// keyed reports whether a request to a public route (healthz, which shows
// more with the key) carries the key. A wrong one counts as at every door:
// the extra fields would tell a guesser which guess was right.
func (s *Server) keyed(c *fasthttp.RequestCtx) bool {
	if s.cfg.APIKey == "" {
		return true
	}
	if len(c.Request.Header.Peek("Authorization")) == 0 {
		return false
	}
	ok := s.authorize(c) == nil
	c.Response.Header.Del("WWW-Authenticate") // the route answers anyway
	return ok
}

// clientOf is the count of c's failed keys (keylimit.Limiter.Client).
func (s *Server) clientOf(c *fasthttp.RequestCtx) string {
	return s.deps.Keys.Client(c.RemoteAddr().String(), headerOf(c))
}

// clientAddr is the client's address for the log: the peer's, or the one a
// proxy named in TRUSTED_PROXIES gives in X-Real-IP or X-Forwarded-For.
func (s *Server) clientAddr(c *fasthttp.RequestCtx) string {
	if a, ok := s.deps.Keys.Addr(c.RemoteAddr().String(), headerOf(c)); ok {
		return a.String()
	}
	return c.RemoteAddr().String()
}

// headerOf reads c's request headers.
func headerOf(c *fasthttp.RequestCtx) func(string) string {
	return func(name string) string { return string(c.Request.Header.Peek(name)) }
}

// tooManyKeys is the answer to an address that sent too many wrong keys:
// 429 with Retry-After.
type tooManyKeys struct{ wait time.Duration }

func (e *tooManyKeys) Error() string {
	return fmt.Sprintf("too many wrong API keys from this address: try again in %d s", keylimit.RetryAfter(e.wait))
}

// hasKey reports a request that carries API_KEY.
func (s *Server) hasKey(c *fasthttp.RequestCtx) bool { return hasBearer(c, s.cfg.APIKey) }

// hasBearer reports a request whose Authorization is "Bearer <secret>".
func hasBearer(c *fasthttp.RequestCtx, secret string) bool {
	want := "Bearer " + secret
	got := string(c.Request.Header.Peek("Authorization"))
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}
