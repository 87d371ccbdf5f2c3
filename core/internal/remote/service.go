package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/ada-chat/ada/core"
)

// Service is a remote service a specialist asks for JSON, and the words its
// client-safe messages use for it, which the model reads and may repeat:
// "<Failed>: <Name> did not answer in time". Unlike an Endpoint's messages,
// these never name a backend or an address.
type Service struct {
	// Failed opens every failure: "web search failed".
	Failed string
	// Canceled is the whole message of a call the caller gave up on:
	// "web search was canceled".
	Canceled string
	// Name is the service as the subject of a sentence: "the search service".
	Name string
	// Expect, if set, names the format of a good answer in the message of a
	// malformed one: "SearXNG JSON" gives "... (not SearXNG JSON)".
	Expect string
	// Why, if set, words the reason for a status the generic reasons do not
	// fit (a rejected token, an unknown user); "" falls back to them.
	Why func(code int) string
}

// GetJSON sends a GET with header to rawURL and decodes a 200 answer of at
// most limit bytes into out. Every error it returns is a core.Error whose
// message is safe for the model; the request URL, whose query may hold what
// the user asked, is left out of the cause too.
func (s Service) GetJSON(ctx context.Context, client *http.Client, rawURL string, header http.Header, out any, limit int64) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return core.Wrap(core.KindInternal, withoutQueryIn(err), "%s: could not build the request", s.Failed)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := client.Do(req)
	if err != nil {
		return s.Transport(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s.Status(resp.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, limit)).Decode(out); err != nil {
		if ctx.Err() != nil {
			return s.Transport(ctx, err) // the body was cut short by the context
		}
		return s.malformed(err)
	}
	return nil
}

// Transport words a failure to get an answer: a deadline (ctx's, or the HTTP
// client's) is the service being too slow, a cancellation is the caller
// going away, anything else is an unreachable service.
func (s Service) Transport(ctx context.Context, err error) error {
	err = withoutQueryIn(err)
	if deadline, ok := stopped(ctx, err); ok && deadline {
		return core.Wrap(core.KindUpstream, err, "%s: %s did not answer in time", s.Failed, s.Name)
	} else if ok {
		return core.Wrap(core.KindCanceled, err, "%s", s.Canceled)
	}
	return core.Wrap(core.KindUpstream, err, "%s: %s could not be reached", s.Failed, s.Name)
}

// Status words a non-200 answer.
func (s Service) Status(code int) error {
	why := ""
	if s.Why != nil {
		why = s.Why(code)
	}
	if why == "" {
		switch {
		case code == http.StatusTooManyRequests:
			why = s.Name + " is rate-limiting requests"
		case code >= 500:
			why = s.Name + " had an internal error"
		default:
			why = s.Name + " answered with an unexpected status"
		}
	}
	return core.Errorf(core.KindUpstream, "%s: %s (HTTP %d)", s.Failed, why, code)
}

func (s Service) malformed(err error) error {
	not := ""
	if s.Expect != "" {
		not = " (not " + s.Expect + ")"
	}
	return core.Wrap(core.KindUpstream, err, "%s: %s sent a malformed answer%s", s.Failed, s.Name, not)
}

// stopped reports whether a call ended because a context did rather than
// failing: ok is true when ctx has ended or err is a context's error, and
// deadline tells a deadline (the service was too slow) from a cancellation
// (the caller left). ctx comes first: once it has ended, whatever net/http
// made of it, that is the cause.
func stopped(ctx context.Context, err error) (deadline, ok bool) {
	if cerr := ctx.Err(); cerr != nil {
		return errors.Is(cerr, context.DeadlineExceeded), true
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return true, true
	case errors.Is(err, context.Canceled):
		return false, true
	}
	return false, false
}

// withoutQueryIn is err with the URL of a *url.Error in its chain replaced
// by WithoutQuery's.
func withoutQueryIn(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s %s: %w", ue.Op, WithoutQuery(ue.URL), ue.Err)
	}
	return err
}

// WithoutQuery is raw without its query string, fragment and user info,
// which may carry a key: an address as logs, health and errors show it.
func WithoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(the service)"
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}
