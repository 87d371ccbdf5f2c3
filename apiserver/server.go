package apiserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"github.com/ada-chat/ada/apiserver/keylimit"
	"github.com/ada-chat/ada/core"
)

// Config holds what the HTTP adapter needs from the settings. Every field
// is taken as given: the defaults and ranges are config's, and cmd/ada passes
// the loaded values.
type Config struct {
	RequestTimeout time.Duration
	// KeepAlive is the silence after which a stream sends a comment line.
	KeepAlive    time.Duration
	MaxBodyBytes int64
	// UploadMaxBytes is the larger limit of the OCR upload route.
	UploadMaxBytes int64
	// OCRConcurrency bounds the tesseract runs of /v1/ocr/extract.
	OCRConcurrency int
	APIKey         string
	// MetricsToken (METRICS_TOKEN) opens /metrics alone; MetricsNetworks
	// (METRICS_ALLOWED_NETWORKS) are the addresses that may scrape it.
	MetricsToken    string
	MetricsNetworks keylimit.Networks
	RAGDebug        bool
	Version         string
	AIName          string
	UserName        string
	// PublicConfig is the secret-free settings dump shown by healthz.
	PublicConfig map[string]any
	// CORSOrigins are the browser origins allowed to call the API ("*" for
	// any); empty turns CORS off.
	CORSOrigins []string
	// ConversationKey derives the conversations of OpenAI front-ends'
	// requests (DATA_DIR/secret.key); zero: every request is a new one.
	ConversationKey core.ConversationKey
	// PublicURL is where people reach Ada (PUBLIC_URL): without APIKey its
	// host is, beside loopback names, the one Host answered (hostGuard).
	PublicURL string
}

// Deps are optional adapters beside core.
type Deps struct {
	Music MusicProvider
	OCR   TextExtractor
	// Matrix reports the Matrix bridge running in this process (ada up);
	// nil without one.
	Matrix func() MatrixStatus
	// MCPServers reports the MCP servers whose tools are specialists; nil
	// without MCP_SERVERS_FILE.
	MCPServers func() []MCPServerStatus
	// Metrics observes requests and Gatherer is what /metrics serves; nil
	// turns metrics off.
	Metrics  Metrics
	Gatherer prometheus.Gatherer
	// MCP serves /mcp (apiserver/mcp.Handler); nil answers 404.
	MCP http.Handler
	// UI serves the memory page under /ui/ (apiserver/ui.Handler); nil
	// leaves /ui to the API's 404. It is not part of the OpenAPI document.
	UI http.Handler
	// Keys counts wrong API keys per client address, shared with the
	// page's logins (cmd/ada builds one for both); nil builds one of the
	// API's own that trusts no proxy.
	Keys *keylimit.Limiter
}

// Server is the HTTP API.
type Server struct {
	core    Service
	deps    Deps
	cfg     Config
	log     *slog.Logger
	baseCtx context.Context
	stop    context.CancelCauseFunc
	http    *fasthttp.Server
	routes  []route
	// ocrSlots bounds concurrent tesseract runs (OCR_CONCURRENCY).
	ocrSlots *slots
	// running are the requests being answered (see Shutdown).
	running *inflight
	// started is when the server was built: the "created" of the models
	// /v1/models lists.
	started time.Time
	// publicHost is PUBLIC_URL's host (publicHost), parsed once rather
	// than on every request hostGuard admits.
	publicHost string
}

// New builds the server; Serve starts it.
func New(svc Service, deps Deps, cfg Config, log *slog.Logger) *Server {
	// OCR_MAX_BYTES and MAX_BODY_BYTES are set apart; an upload is never
	// held to less than any other body.
	if cfg.UploadMaxBytes < cfg.MaxBodyBytes {
		cfg.UploadMaxBytes = cfg.MaxBodyBytes
	}
	if deps.Metrics == nil {
		deps.Metrics = noMetrics{}
	}
	if deps.Keys == nil {
		deps.Keys = keylimit.New(keylimit.Options{})
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	s := &Server{core: svc, deps: deps, cfg: cfg, log: log, baseCtx: ctx, stop: cancel,
		ocrSlots: newSlots(cfg.OCRConcurrency, ocrQueueWait), started: time.Now(), running: newInflight(),
		publicHost: publicHost(cfg.PublicURL)}
	s.routes = s.routeTable()
	rt := &router{
		notFound: s.wrap(unmatchedRoute, notFoundHandler, nil, writeError),
		wrongVerb: func(allow []string, render errorRenderer) fasthttp.RequestHandler {
			return s.wrap(unmatchedRoute, func(*request) error { return &methodError{allow} }, nil, render)
		},
	}
	for _, r := range s.routes {
		h := r.handler
		if r.json {
			h = requireJSON(h)
		}
		auth := r.auth
		switch {
		case r.public:
			auth = nil
		case auth == nil:
			auth = s.authorize
		}
		rt.routes = append(rt.routes, compiledRoute{route: r, segs: splitPath(r.pattern), h: s.wrap(r.pattern, h, auth, r.errorRenderer())})
	}
	s.http = &fasthttp.Server{
		// hostGuard first: a request for a foreign Host reaches nothing.
		Handler: s.hostGuard(s.cors(s.withFront(s.withUI(rt.handle)))),
		Name:    "ada",
		// The largest body of any route; HeaderReceived lowers it for every
		// route but the upload before a byte of the body is read.
		MaxRequestBodySize: s.uploadLimit(),
		ReadBufferSize:     maxHeaderBytes,
		HeaderReceived:     s.bodyLimit,
		ReadTimeout:        60 * time.Second,
		IdleTimeout:        120 * time.Second,
		ErrorHandler:       s.transportError,
		// fasthttp's own log quotes broken requests, paths included.
		Logger: fasthttpLog{s.log},
		// The request timeout bounds handlers; streams may run that long.
		WriteTimeout:          cfg.RequestTimeout + 10*time.Second,
		NoDefaultServerHeader: false,
		NoDefaultContentType:  true,
		CloseOnShutdown:       true,
	}
	return s
}

// transportError renders fasthttp's own failures (body too large, a broken
// request) as JSON like every other error.
func (s *Server) transportError(c *fasthttp.RequestCtx, err error) {
	var status int
	var detail string
	var small *fasthttp.ErrSmallBuffer
	if errors.Is(err, fasthttp.ErrBodyTooLarge) || errors.As(err, &small) {
		lingerOnClose(c.Conn())
	}
	switch {
	case small != nil:
		status = fasthttp.StatusRequestHeaderFieldsTooLarge
		detail = fmt.Sprintf("the request line and headers are larger than %d bytes", maxHeaderBytes)
	case errors.Is(err, fasthttp.ErrBodyTooLarge) && isUpload(&c.Request.Header):
		status = fasthttp.StatusRequestEntityTooLarge
		detail = fmt.Sprintf("request body is larger than %d bytes (OCR_MAX_BYTES plus the form's framing)", s.uploadLimit())
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		status = fasthttp.StatusRequestEntityTooLarge
		detail = fmt.Sprintf("request body is larger than %d bytes (MAX_BODY_BYTES)", s.cfg.MaxBodyBytes)
	default:
		status, detail = fasthttp.StatusBadRequest, "malformed HTTP request"
	}
	writeJSON(c, status, map[string]string{"detail": detail})
	// A client's mistake: WARN, like every 4xx (logLevel).
	s.log.Warn("request", "method", string(c.Method()), "path", redactLinks(string(c.Path())), "status", status, "error", redactLinks(err.Error()))
}

// maxHeaderBytes bounds a request's line and headers together: a search
// of a long memory's whole text in the URL fits (fasthttp's default of
// 4 KiB did not: a few hundred non-Latin words, percent-encoded, filled it).
const maxHeaderBytes = 16 << 10

// uploadFraming is what multipart adds around an uploaded file.
const uploadFraming = 64 << 10

func (s *Server) uploadLimit() int { return int(s.cfg.UploadMaxBytes) + uploadFraming }

// isUpload reports the one route whose body may exceed MAX_BODY_BYTES.
// Any other spelling of the path gets the smaller limit, which is safe.
func isUpload(h *fasthttp.RequestHeader) bool {
	path, _, _ := strings.Cut(string(h.RequestURI()), "?")
	return string(h.Method()) == fasthttp.MethodPost && strings.TrimRight(path, "/") == "/v1/ocr/extract"
}

// bodyLimit sets each request's body limit from its headers, before the body
// is read: a declared Content-Length over the limit is refused with 413 at
// once, and a chunked body is cut off there. Without it every route would
// read up to the upload limit (OCR_MAX_BYTES) into memory before its own
// MAX_BODY_BYTES check.
func (s *Server) bodyLimit(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	if isUpload(h) {
		return fasthttp.RequestConfig{MaxRequestBodySize: s.uploadLimit()}
	}
	return fasthttp.RequestConfig{MaxRequestBodySize: int(s.cfg.MaxBodyBytes)}
}

// Serve serves on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	return s.http.Serve(lingerListener{ln})
}

// Shutdown drains the server: new requests are answered 503 "Ada is
// shutting down" with Retry-After (a load balancer or client retries them
// elsewhere or later) while the running ones, streams included, finish,
// until ctx ends. Then what still runs is cancelled: a request answers 503,
// a stream ends with that error event, never a silent close. Shutdown
// returns once every handler has returned.
func (s *Server) Shutdown(ctx context.Context) error {
	select {
	case <-s.running.drain():
	case <-ctx.Done():
		s.log.Warn("shutdown grace period over; ending the requests still running")
	}
	s.stop(errShuttingDown)
	// Handlers return promptly once cancelled; the bound only guards
	// against one that does not.
	closeCtx, cancel := context.WithTimeout(context.Background(), handlerExitWait)
	defer cancel()
	return s.http.ShutdownWithContext(closeCtx)
}

// handlerExitWait bounds how long Shutdown waits for cancelled handlers.
const handlerExitWait = 5 * time.Second

// checkBody enforces MAX_BODY_BYTES on JSON routes.
func (s *Server) checkBody(r *request) error {
	if int64(len(r.PostBody())) > s.cfg.MaxBodyBytes {
		return core.Errorf(core.KindTooLarge, "request body is larger than %d bytes (MAX_BODY_BYTES)", s.cfg.MaxBodyBytes)
	}
	return nil
}
