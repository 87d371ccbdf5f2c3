package apiserver

import (
	"net/http"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/ada-chat/ada/core"
)

// Metrics observes the API's requests; core/metrics implements it.
type Metrics interface {
	// Request counts a request that ended: its route pattern (never its
	// path: no id may become a label), method, status and duration.
	Request(route, method string, status int, d time.Duration)
	// Stream marks a chat stream that opened; end marks its end.
	Stream() (end func())
}

// noMetrics observes nothing (METRICS_ENABLED=false).
type noMetrics struct{}

func (noMetrics) Request(string, string, int, time.Duration) {}
func (noMetrics) Stream() func()                             { return func() {} }

// unmatchedRoute is the route label of a request no route fits.
const unmatchedRoute = "unmatched"

// handleMetrics renders the registry in the Prometheus exposition format the
// scraper asks for (text by default). It is rendered here with expfmt
// rather than through promhttp and fasthttp's net/http adaptor, so that the
// scrape goes through this server's own middleware like every route: the
// API key, the request id, panic recovery and one log line.
func (s *Server) handleMetrics(r *request) error {
	if s.deps.Gatherer == nil {
		return core.Errorf(core.KindNotFound, "metrics are off (METRICS_ENABLED=false)")
	}
	families, err := s.deps.Gatherer.Gather()
	if err != nil {
		if len(families) == 0 {
			return core.Wrap(core.KindInternal, err, "gathering metrics failed")
		}
		// Like promhttp's ContinueOnError: serve what was gathered.
		r.log.Warn("some metrics could not be gathered", "error", err)
	}
	h := http.Header{}
	h.Set("Accept", string(r.Request.Header.Peek("Accept")))
	format := expfmt.Negotiate(h)
	r.SetContentType(string(format))
	enc := expfmt.NewEncoder(r.Response.BodyWriter(), format)
	for _, f := range families {
		if err := enc.Encode(f); err != nil {
			return core.Wrap(core.KindInternal, err, "encoding metrics failed")
		}
	}
	if c, ok := enc.(expfmt.Closer); ok {
		return c.Close()
	}
	return nil
}
