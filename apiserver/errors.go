package apiserver

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/ada-chat/ada/apiserver/keylimit"
	"github.com/ada-chat/ada/apiserver/wire"
	"github.com/ada-chat/ada/core"
)

// statusOf is the HTTP status of err: its kind's (wire's table), or 499
// for a client that left.
func statusOf(err error) int {
	if errors.Is(err, errClientGone) {
		return statusClientClosed
	}
	if tm := (*tooManyKeys)(nil); errors.As(err, &tm) {
		return fasthttp.StatusTooManyRequests
	}
	if errors.Is(err, errNotAllowedNetwork) {
		return fasthttp.StatusForbidden
	}
	// A cancelled request whose client is still there timed out: 504.
	return wire.Status(core.KindOf(err))
}

// errShuttingDown ends the requests still running when the server stops. It
// is a 503 with Retry-After, because Ada will answer again once restarted.
var errShuttingDown = core.Errorf(core.KindUnavailable, "Ada is shutting down; retry in a moment")

// retryAfterShutdown is the Retry-After of errShuttingDown, in seconds: about
// what a restart takes.
const retryAfterShutdown = "5"

// errTimedOut is the cause of a request context that reached the request
// timeout.
var errTimedOut = errors.New("request timeout")

// whyEnded replaces the error of a request whose context the server ended,
// at the request timeout or at shutdown, by that reason: the client gets its
// status (504, 503), and the log does not blame the dependency the request
// happened to be waiting for (the LLM, usually).
func (s *Server) whyEnded(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errShuttingDown):
		return errShuttingDown
	case errors.Is(cause, errClientGone):
		if errors.Is(err, errClientGone) {
			return err
		}
		return fmt.Errorf("%w: %w", errClientGone, err)
	case errors.Is(cause, errTimedOut):
		return core.Wrap(core.KindCanceled, err, "request timed out after %d s (REQUEST_TIMEOUT_SECONDS)", int(s.cfg.RequestTimeout/time.Second))
	}
	return err
}

// statusClientClosed is the status logged for a request whose client left
// before the answer (nginx's 499). Nobody receives it; it keeps a client
// that hung up apart from a server error or a timeout (504) in the logs.
const statusClientClosed = 499

// errMethodNotAllowed is rendered as 405 by the router.
type methodError struct{ allow []string }

func (e *methodError) Error() string {
	return "method not allowed; use " + strings.Join(e.allow, ", ")
}

// writeError renders err as {"detail": ...} with its status. Internal errors
// get a generic detail; their cause is logged by the middleware.
func writeError(c *fasthttp.RequestCtx, err error) int {
	status, detail := errorResponse(c, err)
	writeJSON(c, status, map[string]string{"detail": detail})
	return status
}

// writeOpenAIError renders err in OpenAI's error shape, for the routes of
// the OpenAI-compatible API, whose clients read no other.
func writeOpenAIError(c *fasthttp.RequestCtx, err error) int {
	status, detail := errorResponse(c, err)
	writeJSON(c, status, wire.OpenAIErrorFor(status, detail))
	return status
}

// errorResponse is err's status and client-safe detail, with the headers
// that go with them.
func errorResponse(c *fasthttp.RequestCtx, err error) (int, string) {
	status := statusOf(err)
	detail := core.SafeMessage(err)
	var me *methodError
	if errors.As(err, &me) {
		status, detail = fasthttp.StatusMethodNotAllowed, me.Error()
		c.Response.Header.Set("Allow", strings.Join(me.allow, ", "))
	}
	var mt *mediaTypeError
	if errors.As(err, &mt) {
		status, detail = fasthttp.StatusUnsupportedMediaType, mt.Error()
	}
	if errors.Is(err, errShuttingDown) {
		c.Response.Header.Set("Retry-After", retryAfterShutdown)
	}
	if tm := (*tooManyKeys)(nil); errors.As(err, &tm) {
		detail = tm.Error()
		c.Response.Header.Set("Retry-After", strconv.Itoa(keylimit.RetryAfter(tm.wait)))
	}
	return status, detail
}
