package apiserver

import (
	"github.com/valyala/fasthttp"

	"github.com/ada-chat/ada/core"
)

// errNotAllowedNetwork answers a scrape from outside METRICS_ALLOWED_NETWORKS
// with 403.
var errNotAllowedNetwork = core.Errorf(core.KindUnauthorized,
	"this address may not read /metrics: it is not in METRICS_ALLOWED_NETWORKS")

// authorizeMetrics lets Prometheus in without API_KEY, which unlocks every
// memory. METRICS_ALLOWED_NETWORKS, when set, is checked first, on the
// client's real address (the one a trusted proxy names): outside it 403.
// Then the credential: METRICS_TOKEN when set (API_KEY also works), else
// the address alone when networks are set, else API_KEY as on every route.
// A wrong token counts toward the address's wrong keys like a wrong API key.
func (s *Server) authorizeMetrics(c *fasthttp.RequestCtx) error {
	nets := len(s.cfg.MetricsNetworks) > 0
	if nets {
		a, ok := s.deps.Keys.Addr(c.RemoteAddr().String(), headerOf(c))
		if !ok || !s.cfg.MetricsNetworks.Contains(a) {
			return errNotAllowedNetwork
		}
	}
	switch {
	case s.cfg.MetricsToken == "" && nets:
		return nil
	case s.cfg.MetricsToken == "":
		return s.authorize(c)
	}
	client := s.clientOf(c)
	if wait := s.deps.Keys.Blocked(client); wait > 0 {
		return &tooManyKeys{wait: wait}
	}
	if hasBearer(c, s.cfg.MetricsToken) || (s.cfg.APIKey != "" && s.hasKey(c)) {
		return nil
	}
	s.deps.Keys.Fail(client)
	c.Response.Header.Set("WWW-Authenticate", "Bearer")
	return core.Errorf(core.KindUnauthorized, "missing or invalid metrics token: send Authorization: Bearer <METRICS_TOKEN>")
}
