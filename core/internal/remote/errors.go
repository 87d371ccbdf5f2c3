package remote

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"unicode"

	"github.com/ada-chat/ada/core"
)

// excerptRunes bounds the upstream text quoted in a client-visible message.
const excerptRunes = 200

// Fail turns an error met while talking to the backend into a core.Error.
// If ctx has ended, that is the cause, whatever net/http made of it (see
// stopped, which the specialists' Service shares): cancellation is
// KindCanceled (the caller went away), a deadline is KindUpstream (the
// backend was too slow), and both keep ctx.Err() in the chain for errors.Is.
func (e *Endpoint) Fail(ctx context.Context, err error) error {
	// *url.Error repeats the request URL; the message already names the
	// address, so keep only the underlying cause.
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	if deadline, ok := stopped(ctx, err); ok {
		cause := cmp.Or(ctx.Err(), err)
		if deadline {
			return e.wrap(core.KindUpstream, cause, "timed out")
		}
		return e.wrap(core.KindCanceled, cause, "request canceled")
	}
	return e.wrap(core.KindUpstream, err, "%s", reason(err))
}

// reason names a transport failure in words an operator can act on.
func reason(err error) string {
	var dnsErr *net.DNSError
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &dnsErr):
		return "host not found"
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timed out"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return "connection closed unexpectedly"
	default:
		return "request failed"
	}
}

// Malformed reports a response body or stream chunk that could not be
// decoded. The chunk itself goes into the internal cause only: it may hold
// model output.
func (e *Endpoint) Malformed(err error, chunk []byte) error {
	cause := fmt.Errorf("%w in %q", err, e.sanitise(string(chunk)))
	return e.wrap(core.KindUpstream, cause, "malformed response")
}

// Remote reports an error that the backend sent inside a successful
// response, such as Ollama's {"error": "..."} line in the middle of a stream.
func (e *Endpoint) Remote(msg string) error {
	return e.wrap(core.KindUpstream, nil, "backend error: %s", e.sanitise(msg))
}

// Truncated reports a stream that ended before its end marker.
func (e *Endpoint) Truncated() error {
	return e.wrap(core.KindUpstream, nil, "stream ended before the reply was complete")
}

// Invalid reports a well-formed response whose content is unusable, such as
// an embedding of the wrong size.
func (e *Endpoint) Invalid(format string, args ...any) error {
	return e.wrap(core.KindUpstream, nil, "%s", fmt.Sprintf(format, args...))
}

// statusError is the internal cause of a non-2xx answer.
type statusError struct{ Code int }

func (s *statusError) Error() string { return fmt.Sprintf("HTTP status %d", s.Code) }

func (e *Endpoint) statusError(resp *http.Response) error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<10))
	text := fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	if msg := e.sanitise(errorText(resp.Header.Get("Content-Type"), raw)); msg != "" {
		text += ": " + msg
	}
	return e.wrap(core.KindUpstream, &statusError{Code: resp.StatusCode}, "%s", text)
}

// errorText picks the human part of an error body: the message field of the
// JSON shapes used by Ollama, OpenAI and common proxies, else the raw text.
// HTML error pages say nothing useful in one line, so they are dropped.
func errorText(contentType string, raw []byte) string {
	if mt, _, _ := mime.ParseMediaType(contentType); mt == "text/html" {
		return ""
	}
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(raw, &body) != nil {
		return string(raw)
	}
	var s string
	if json.Unmarshal(body.Error, &s) == nil && s != "" {
		return s
	}
	var nested struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body.Error, &nested) == nil && nested.Message != "" {
		return nested.Message
	}
	if body.Message != "" {
		return body.Message
	}
	if body.Detail != "" {
		return body.Detail
	}
	return string(raw)
}

// sanitise makes upstream text fit for a one-line, client-visible message:
// the API key is masked (some servers echo it), control characters and runs
// of white space become one space, and the result is cut to excerptRunes.
func (e *Endpoint) sanitise(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if e.apiKey != "" {
		s = strings.ReplaceAll(s, e.apiKey, "[redacted]")
	}
	var b strings.Builder
	space := false
	n := 0
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if n == excerptRunes {
			b.WriteString("…")
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// wrap builds the error of a failed call. The client-safe message names the
// backend and the kind of failure; the backend's address is internal (API
// clients need not learn where the LLM runs), so it goes with the cause into
// the log line.
func (e *Endpoint) wrap(kind core.ErrorKind, cause error, format string, args ...any) *core.Error {
	return core.Wrap(kind, &atAddr{addr: e.addr, err: cause}, "%s: %s", e.label, fmt.Sprintf(format, args...))
}

// atAddr is an internal cause that names the backend's address.
type atAddr struct {
	addr string
	err  error
}

func (a *atAddr) Error() string {
	if a.err == nil {
		return "at " + a.addr
	}
	return "at " + a.addr + ": " + a.err.Error()
}

func (a *atAddr) Unwrap() error { return a.err }
