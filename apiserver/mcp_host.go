package apiserver

import (
	"bytes"
	"context"
	"net/http"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"

	"github.com/ada-chat/ada/core"
)

// handleMCP hosts the MCP server (a net/http handler, Deps.MCP) on the
// fasthttp server, through serveHTTP.
func (s *Server) handleMCP(r *request) error {
	if s.deps.MCP == nil {
		return core.Errorf(core.KindNotFound, "MCP is not served by this process")
	}
	if err := s.checkBody(r); err != nil {
		return err
	}
	return s.serveHTTP(r, s.deps.MCP, s.mcpContext(r))
}

// serveHTTP runs a net/http handler (MCP, the memory page) as a request of
// this server, with ctx (the request's, or one derived from it). Why a thin adaptor of our own rather than
// fasthttpadaptor.NewFastHTTPHandler or a net/http listener beside this
// one: the request goes through wrap like every route, so API_KEY, the
// request id, panic recovery, the drain and the one log line are the API's
// own; the handler gets the request's real context, which ends at the
// request timeout, at shutdown, and when the client leaves
// (watchDisconnect), where NewFastHTTPHandler would hand it the
// RequestCtx, which ends only at shutdown; and one port, one listener, one
// TLS and proxy setup. It buffers the reply: stateless MCP answers one
// JSON body, the page one HTML page.
func (s *Server) serveHTTP(r *request, h http.Handler, ctx context.Context) error {
	var hr http.Request
	if err := fasthttpadaptor.ConvertRequest(r.RequestCtx, &hr, true); err != nil {
		return core.Wrap(core.KindInvalid, err, "malformed HTTP request")
	}
	stop := watchDisconnect(r.Conn(), r.clientGone)
	defer func() { // also when the handler panics: wrap recovers it
		if stop() {
			r.SetConnectionClose()
		}
	}()
	w := &bufferedResponse{header: http.Header{}}
	h.ServeHTTP(w, hr.WithContext(ctx))
	if err := r.ctx.Err(); err != nil {
		return err // wrap answers and logs why: 499, 503 or 504
	}
	w.writeTo(&r.Response)
	return nil
}

// mcpContext is the request's context for the MCP handler, with the
// connection's local address where the SDK's own DNS-rebinding check
// (which refuses a non-loopback Host on a loopback connection) agrees with
// hostGuard: a second wall behind it. fasthttpadaptor does not set the
// address, so without this the SDK's check never ran.
func (s *Server) mcpContext(r *request) context.Context {
	if !s.sdkJudgesHost(string(r.Request.Header.Host())) {
		return r.ctx
	}
	return context.WithValue(r.ctx, http.LocalAddrContextKey, r.LocalAddr())
}

// bufferedResponse is the http.ResponseWriter of handleMCP.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *bufferedResponse) Header() http.Header { return w.header }

func (w *bufferedResponse) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *bufferedResponse) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

// Flush does nothing: the reply is sent whole when the handler returns.
func (w *bufferedResponse) Flush() {}

func (w *bufferedResponse) writeTo(resp *fasthttp.Response) {
	for k, vs := range w.header {
		for _, v := range vs {
			resp.Header.Add(k, v)
		}
	}
	if w.status == 0 {
		w.status = http.StatusOK
	}
	resp.SetStatusCode(w.status)
	resp.SetBody(w.body.Bytes())
}
