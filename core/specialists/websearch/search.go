package websearch

import (
	"context"
	"net/http"
	"strings"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/internal/remote"
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

// searchService words the failures of the search service for the model.
var searchService = remote.Service{
	Failed: "web search failed", Canceled: "web search was canceled", Name: "the search service",
	Expect: "SearXNG JSON",
	Why: func(code int) string {
		if code == http.StatusForbidden {
			// SearXNG answers 403 when "json" is missing from search.formats.
			return "the search service refused the request (is its JSON format enabled?)"
		}
		return ""
	},
}

// search asks the service for query. Every error it returns is a core.Error
// whose Message is safe to give the model; the query, which is the user's
// search, stays out of the errors' causes and so out of the logs.
func (s *Specialist) search(ctx context.Context, query string) (response, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()

	u := *s.endpoint
	q := u.Query()
	q.Set("q", query)
	q.Set("format", "json")
	u.RawQuery = q.Encode()
	header := http.Header{"Accept": {"application/json"}, "User-Agent": {"Ada web_search specialist"}}
	var out response
	err := searchService.GetJSON(ctx, s.client, u.String(), header, &out, maxBody)
	return out, err
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
