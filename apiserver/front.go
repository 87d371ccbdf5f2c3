package apiserver

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

// withFront answers what a browser asks of the bare address it was given:
// "/" leads to the memory page (to /docs when there is none), and
// /favicon.ico, which browsers fetch on their own, is the docs' icon.
// Neither is an API route (the route table is checked against
// openapi.json), and neither should be a JSON 404 logged as a client's
// mistake. Both still run in the API's envelope (wrap): a request id and
// one log line.
func (s *Server) withFront(next fasthttp.RequestHandler) fasthttp.RequestHandler {
	target := "/docs"
	if s.deps.UI != nil {
		target = uiRoute
	}
	root := s.wrap("/", func(r *request) error {
		// A relative Location (fasthttp's Redirect makes it absolute from
		// the request, http:// behind a TLS proxy): the browser keeps the
		// scheme and host it used.
		r.Response.Header.Set("Location", target)
		r.SetStatusCode(fasthttp.StatusFound)
		return nil
	}, nil, writeError)
	icon := s.wrap("/favicon.ico", func(r *request) error {
		return s.serveDocsFile(r, "favicon-32x32.png")
	}, nil, writeError)
	return func(c *fasthttp.RequestCtx) {
		if c.IsGet() || c.IsHead() {
			switch p := c.Path(); {
			case bytes.Equal(p, []byte("/")):
				root(c)
				return
			case bytes.Equal(p, []byte("/favicon.ico")):
				icon(c)
				return
			}
		}
		next(c)
	}
}
