package apiserver

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/valyala/fasthttp"
)

// hostGuard answers, when no API_KEY is set, only requests addressed to
// Ada by a name that cannot be made to point elsewhere: a loopback name or
// address, or PUBLIC_URL's host. Without it a web page whose own name the
// attacker re-resolves to 127.0.0.1 (DNS rebinding) reads its answers as
// same-origin, and every route, /mcp, /ui and /metrics included, would be
// open to any site the user visits. It runs before everything else on the
// port, so no route can forget it. With API_KEY the key is the wall: a
// rebinding page cannot know it, and Ada may sit behind any name.
//
// It also refuses a page of another site's writes (crossSiteWrite), which
// carry a loopback Host.
//
// A refused request gets 403 {"detail"}, the status the MCP SDK's own
// rebinding check uses, and a WARN line; it is not counted as a request of
// any route, since it never reached one.
func (s *Server) hostGuard(next fasthttp.RequestHandler) fasthttp.RequestHandler {
	if s.cfg.APIKey != "" {
		return next
	}
	return func(c *fasthttp.RequestCtx) {
		host := string(c.Request.Header.Host())
		admitted := s.admitsHost(host)
		if admitted && !s.crossSiteWrite(c) {
			next(c)
			return
		}
		if admitted {
			writeJSON(c, fasthttp.StatusForbidden, map[string]string{"detail": crossSiteDetail})
			s.log.Warn("request refused: a page of another site without API_KEY", "method", string(c.Method()),
				"origin", quoteShort(string(c.Request.Header.Peek("Origin"))), "status", fasthttp.StatusForbidden)
			return
		}
		writeJSON(c, fasthttp.StatusForbidden, map[string]string{"detail": foreignHostDetail(host, s.publicHost)})
		c.SetConnectionClose()
		s.log.Warn("request refused: Host is not Ada's", "method", string(c.Method()), "host", quoteShort(host), "status", fasthttp.StatusForbidden)
	}
}

// crossSiteWrite reports a request a browser sent for a page of another
// site (Sec-Fetch-Site, which a page cannot set) that is not a navigation
// or a preflight, from an origin CORS_ORIGINS does not name. The Host
// check cannot see it (the page addressed 127.0.0.1 itself), and the
// JSON Content-Type rule leaves the "simple" multipart and form posts a
// page may send without asking: the OCR upload, the page's forms. A
// member link followed from a chat app is a GET navigation and passes.
func (s *Server) crossSiteWrite(c *fasthttp.RequestCtx) bool {
	if string(c.Request.Header.Peek("Sec-Fetch-Site")) != "cross-site" || c.IsGet() || c.IsHead() || c.IsOptions() {
		return false
	}
	origin := strings.TrimSuffix(string(c.Request.Header.Peek("Origin")), "/")
	return origin == "" || !slices.Contains(s.cfg.CORSOrigins, origin)
}

const crossSiteDetail = "a page of another site cannot send this to Ada without API_KEY: " +
	"add the page's origin to CORS_ORIGINS, or set API_KEY"

// foreignHostDetail says why a Host is refused and what the operator can do.
func foreignHostDetail(host, public string) string {
	allowed := "localhost, *.localhost, 127.0.0.0/8 or [::1]"
	if public != "" {
		allowed += " or " + public + " (PUBLIC_URL)"
	}
	return fmt.Sprintf("Host %s is not one Ada answers to without API_KEY (allowed: %s): "+
		"this protects against web pages that rebind their name to this address; "+
		"set PUBLIC_URL to the address people reach Ada at, or set API_KEY", quoteShort(host), allowed)
}

// quoteShort quotes a client's Host for a message or a log line, cut short.
func quoteShort(s string) string {
	const limit = 100
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// hostname is the Host header without its port and brackets, lower case.
func hostname(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
}

// loopbackHost reports a Host that names this machine's loopback whatever
// DNS says: localhost and *.localhost (which browsers resolve to loopback
// themselves, RFC 6761), and loopback addresses, with or without port.
func loopbackHost(host string) bool {
	name := hostname(host)
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.Unmap().IsLoopback()
}

// publicHost is PUBLIC_URL's host name, lower case; empty without one.
func publicHost(publicURL string) string {
	u, err := url.Parse(publicURL)
	if err != nil || publicURL == "" {
		return ""
	}
	return hostname(u.Host)
}

// admitsHost is hostGuard's rule without API_KEY: a loopback name or
// address, or PUBLIC_URL's host.
func (s *Server) admitsHost(host string) bool {
	return loopbackHost(host) || (s.publicHost != "" && hostname(host) == s.publicHost)
}

// sdkJudgesHost reports whether the MCP SDK's own rebinding check may see
// the connection's local address: where its rule (only "localhost" and
// loopback addresses, spelled exactly so) agrees with Ada's, and for what
// Ada would refuse, which reaches /mcp only if hostGuard were bypassed: a
// second wall. Where Ada admits a Host the SDK would refuse (an API key is
// set, PUBLIC_URL's host, *.localhost, LOCALHOST), handleMCP hides the
// address from it.
func (s *Server) sdkJudgesHost(host string) bool {
	return s.cfg.APIKey == "" && (!s.admitsHost(host) || sdkLoopback(host))
}

// sdkLoopback is the MCP SDK's loopback rule (go-sdk internal/util
// IsLoopback), which it applies to the Host of a request that came in on a
// loopback address.
func sdkLoopback(host string) bool {
	name, _, err := net.SplitHostPort(host)
	if err != nil {
		name = strings.Trim(host, "[]")
	}
	if name == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.IsLoopback()
}
