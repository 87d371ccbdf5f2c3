package apiserver

import (
	"slices"
	"strconv"
	"strings"

	"github.com/valyala/fasthttp"
)

// corsMaxAge is how long a browser may cache a preflight answer, in seconds.
const corsMaxAge = 600

// stainlessHeaders are what the official OpenAI client libraries (generated
// by Stainless) send with every request, from a browser too: a preflight
// that leaves one out makes the browser refuse the whole call.
var stainlessHeaders = []string{
	"X-Stainless-Arch", "X-Stainless-Lang", "X-Stainless-OS", "X-Stainless-Package-Version",
	"X-Stainless-Runtime", "X-Stainless-Runtime-Version", "X-Stainless-Retry-Count",
	"X-Stainless-Timeout", "X-Stainless-Helper-Method", "X-Stainless-Poll-Helper",
	"X-Stainless-Custom-Poll-Interval", "OpenAI-Organization", "OpenAI-Project",
}

// corsAllowHeaders are the request headers a browser front-end may send:
// the API's own, the MCP transport's (Mcp-*, X-Ada-Entity: browser MCP
// clients on /mcp), the front-end headers the OpenAI-compatible API reads
// (its end user and its conversation) and the OpenAI clients' own.
var corsAllowHeaders = strings.Join(slices.Concat(
	[]string{"Authorization", "Content-Type", "Accept", "X-Request-ID", "Mcp-Protocol-Version", "Mcp-Session-Id", "X-Ada-Entity"},
	userHeaders, sessionHeaders, stainlessHeaders), ", ")

// corsExposeHeaders are the answer headers a browser front-end may read:
// the conversation a completion continued (to continue it), the request id
// to quote in a report and when to retry.
const corsExposeHeaders = "X-Request-ID, Retry-After, X-Ada-Conversation-Id"

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
			h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
			h.Set("Access-Control-Max-Age", strconv.Itoa(corsMaxAge))
			c.SetStatusCode(fasthttp.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		next(c)
	}
}
