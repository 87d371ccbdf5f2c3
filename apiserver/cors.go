package apiserver

import (
	"slices"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"
)

// corsMaxAge is how long a browser may cache a preflight answer, in seconds.
const corsMaxAge = 600

// cors lets the browser front-ends of CORS_ORIGINS call the API. A request
// from an allowed origin gets Access-Control-Allow-Origin (that origin, not
// *, so that the Authorization header works with credentials off or on);
// a preflight (OPTIONS with Access-Control-Request-Method) is answered here
// with 204 and the methods and headers the API uses. Requests without an
// Origin, or from other origins, pass through untouched: the browser then
// refuses the answer, as it should.
func (s *Server) cors(next fasthttp.RequestHandler) fasthttp.RequestHandler {
	if len(s.cfg.CORSOrigins) == 0 {
		return next
	}
	anyOrigin := slices.Contains(s.cfg.CORSOrigins, "*")
	return func(c *fasthttp.RequestCtx) {
		origin := string(c.Request.Header.Peek("Origin"))
		allowed := origin != "" && (anyOrigin || slices.Contains(s.cfg.CORSOrigins, strings.TrimSuffix(origin, "/")))
		c.Response.Header.Add("Vary", "Origin")
		if !allowed {
			next(c)
			return
		}
		h := &c.Response.Header
		h.Set("Access-Control-Allow-Origin", origin)
		if c.IsOptions() && len(c.Request.Header.Peek("Access-Control-Request-Method")) > 0 {
			h.Set("Access-Control-Allow-Methods", "GET, POST, PATCH, DELETE, OPTIONS")
			// The Mcp-* headers and X-Ada-Entity: browser MCP clients on /mcp.
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, X-Request-ID, Mcp-Protocol-Version, Mcp-Session-Id, X-Ada-Entity")
			h.Set("Access-Control-Max-Age", strconv.Itoa(corsMaxAge))
			c.SetStatusCode(fasthttp.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", "X-Request-ID, Retry-After")
		next(c)
	}
}
