package websearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/ada-chat/ada/core"
)

// maxBody bounds the answer read from the search service; a SearXNG page of
// results is a few tens of KiB.
const maxBody = 4 << 20

// result is one entry of SearXNG's JSON "results".
type result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Content string `json:"content"`
}

// response is the part of SearXNG's JSON answer that is used.
type response struct {
	Results []result `json:"results"`
	// UnresponsiveEngines lists [engine, reason] pairs; it explains an empty
	// result list.
	UnresponsiveEngines [][]string `json:"unresponsive_engines"`
}

// search asks the service for query. Every error it returns is a core.Error
// whose Message is safe to give the model.
func (s *Specialist) search(ctx context.Context, query string) (response, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()

	u := *s.endpoint
	q := u.Query()
	q.Set("q", query)
	q.Set("format", "json")
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return response{}, core.Wrap(core.KindInternal, err, "web search failed: could not build the request")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "Ada web_search specialist")

	resp, err := s.client.Do(req)
	if err != nil {
		return response{}, transportError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return response{}, statusError(resp.StatusCode)
	}
	var out response
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(&out); err != nil {
		if ctx.Err() != nil {
			return response{}, transportError(ctx, err)
		}
		return response{}, core.Wrap(core.KindUpstream, err, "web search failed: the search service sent a malformed answer (not SearXNG JSON)")
	}
	return out, nil
}

// transportError tells a timeout from a cancelled request (the client went
// away) and from an unreachable service. The cause keeps the service's
// address but not the request URL: its query string is the user's search,
// which must not reach the logs.
func transportError(ctx context.Context, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = fmt.Errorf("%s %s: %w", ue.Op, withoutQuery(ue.URL), ue.Err)
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return core.Wrap(core.KindUpstream, err, "web search failed: the search service did not answer in time")
	case errors.Is(err, context.Canceled):
		return core.Wrap(core.KindCanceled, err, "web search was canceled")
	default:
		return core.Wrap(core.KindUpstream, err, "web search failed: the search service could not be reached")
	}
}

// withoutQuery is raw without its query string, fragment and user info.
func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(the search service)"
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u.String()
}

func statusError(code int) error {
	var why string
	switch {
	case code == http.StatusTooManyRequests:
		why = "the search service is rate-limiting requests"
	case code == http.StatusForbidden:
		// SearXNG answers 403 when "json" is missing from search.formats.
		why = "the search service refused the request (is its JSON format enabled?)"
	case code >= 500:
		why = "the search service had an internal error"
	default:
		why = "the search service answered with an unexpected status"
	}
	return core.Errorf(core.KindUpstream, "web search failed: %s (HTTP %d)", why, code)
}

// noResults explains an empty result list, naming engines that failed. The
// query is left out: the model knows what it asked, and the message is also
// the failure's log line.
func noResults(r response) error {
	msg := "web search found no results"
	var engines []string
	for _, e := range r.UnresponsiveEngines {
		if len(e) > 0 && len(engines) < 5 {
			engines = append(engines, e[0])
		}
	}
	if len(engines) > 0 {
		msg += "; engines that did not answer: " + strings.Join(engines, ", ")
	}
	return core.Errorf(core.KindNotFound, "%s", msg)
}
