package apiserver

import (
	"slices"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/ada-chat/ada/core"
)

// route is one entry of the API surface; routes.go lists them all.
type route struct {
	method  string
	pattern string // segments; "{name}" matches one non-empty segment
	handler handlerFunc
	public  bool // no API key needed
	// auth, if set, replaces the API key check (authorize) of a route
	// that is not public.
	auth func(*fasthttp.RequestCtx) error
	// openai marks the OpenAI-compatible routes, whose errors take
	// OpenAI's shape instead of {"detail"}.
	openai bool
	// json marks the routes that take a JSON body: requireJSON refuses any
	// other Content-Type before the handler runs (contenttype.go).
	json bool
	// summary documents the route (checked against openapi.json in a test).
	summary string
}

type compiledRoute struct {
	route
	segs []string
	h    fasthttp.RequestHandler
}

type router struct {
	routes   []compiledRoute
	notFound fasthttp.RequestHandler
	// wrongVerb answers 405 in the error shape of the path's routes.
	wrongVerb func(allow []string, render errorRenderer) fasthttp.RequestHandler
}

func splitPath(p string) []string {
	return strings.Split(strings.Trim(p, "/"), "/")
}

// match reports whether path fits the pattern and returns the parameters.
func (cr *compiledRoute) match(segs []string) (map[string]string, bool) {
	if len(segs) != len(cr.segs) {
		return nil, false
	}
	var params map[string]string
	for i, s := range cr.segs {
		if strings.HasPrefix(s, "{") {
			if segs[i] == "" {
				return nil, false
			}
			if params == nil {
				params = map[string]string{}
			}
			params[strings.Trim(s, "{}")] = segs[i]
			continue
		}
		if s != segs[i] {
			return nil, false
		}
	}
	return params, true
}

// handle runs the route that fits the path and method. Only the routes that
// fit the path with the fewest parameters count: a literal segment beats a
// parameter, so /v1/conversations/recent is never taken for a conversation
// id, whatever the method.
func (rt *router) handle(c *fasthttp.RequestCtx) {
	segs := splitPath(string(c.Path()))
	method := string(c.Method())
	var (
		hit    *compiledRoute
		params map[string]string
		allow  []string
		render errorRenderer
		fewest = -1 // parameters of the routes that fit the path best
	)
	for i := range rt.routes {
		cr := &rt.routes[i]
		p, ok := cr.match(segs)
		if !ok || (fewest >= 0 && len(p) > fewest) {
			continue
		}
		if fewest < 0 || len(p) < fewest {
			fewest, hit, params, allow = len(p), nil, nil, nil
		}
		if hit == nil && (cr.method == method || (cr.method == fasthttp.MethodGet && method == fasthttp.MethodHead)) {
			hit, params = cr, p
		}
		if !slices.Contains(allow, cr.method) {
			allow = append(allow, cr.method)
		}
		render = cr.errorRenderer()
	}
	if hit != nil {
		for k, v := range params {
			c.SetUserValue(k, v)
		}
		hit.h(c)
		return
	}
	if len(allow) > 0 {
		rt.wrongVerb(allow, render)(c)
		return
	}
	rt.notFound(c)
}

func pathParam(r *request, name string) string {
	v, _ := r.UserValue(name).(string)
	return v
}

func notFoundHandler(r *request) error {
	return core.Errorf(core.KindNotFound, "no endpoint %s %s: see /docs for the API", r.Method(), r.Path())
}

// errorRenderer is how the route writes its errors.
func (r route) errorRenderer() errorRenderer {
	if r.openai {
		return writeOpenAIError
	}
	return writeError
}
