package apiserver

import (
	"bytes"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// withUI sends /ui and /ui/… to the memory page, a net/http handler with its
// own sessions, before the API's router: the page is not an API route (the
// route table is checked against openapi.json), and its paths are never
// logged here, since a member's login link carries a one-time token.
func (s *Server) withUI(api fasthttp.RequestHandler) fasthttp.RequestHandler {
	if s.deps.UI == nil {
		return api
	}
	ui := fasthttpadaptor.NewFastHTTPHandler(s.deps.UI)
	return func(c *fasthttp.RequestCtx) {
		if p := c.Path(); bytes.Equal(p, []byte("/ui")) || bytes.HasPrefix(p, []byte("/ui/")) {
			ui(c)
			return
		}
		api(c)
	}
}
