package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// maxBody bounds a request body the fake reads.
const maxBody = 16 << 20

// Server is a running fake. Create it with New; it closes itself when the
// test ends.
type Server struct {
	srv  *httptest.Server
	stop chan struct{} // closed by Close: releases handlers that hold or hang
	once sync.Once

	mu        sync.Mutex
	scripts   []Reply
	formatted []Reply
	handler   Handler
	def       Reply
	instant   bool
	apiKey    string
	embed     Embed
	reqs      []*Request
	count     int
	cancelled int
	changed   chan struct{} // closed and replaced on every change, for waiters
}

// New starts a fake on 127.0.0.1 with a random port, answering "ok" to every
// chat request until replies are scripted. It is closed by t.Cleanup.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		stop:    make(chan struct{}),
		def:     Reply{Tokens: []string{"ok"}},
		changed: make(chan struct{}),
	}
	s.srv = httptest.NewServer(s.routes())
	t.Cleanup(s.Close)
	return s
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "Ollama is running")
	})
	mux.HandleFunc("POST /api/chat", s.ollamaChat)
	mux.HandleFunc("GET /api/version", s.ollamaVersion)
	mux.HandleFunc("GET /api/tags", s.ollamaTags)
	mux.HandleFunc("POST /api/embed", s.ollamaEmbed)
	mux.HandleFunc("POST /v1/chat/completions", s.openaiChat)
	mux.HandleFunc("GET /v1/models", s.openaiModels)
	mux.HandleFunc("POST /v1/embeddings", s.openaiEmbed)
	return mux
}

// URL is the base URL, e.g. http://127.0.0.1:41234, for either protocol.
func (s *Server) URL() string { return s.srv.URL }

// Close releases held and hanging replies and stops the server. It is safe
// to call more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.stop)
		s.srv.Close()
	})
}

// Script queues replies; each chat request, of either protocol, takes the
// next one. When the queue is empty the default reply is used.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts = append(s.scripts, replies...)
}

// Default sets the reply used when no script is queued.
func (s *Server) Default(r Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = r
}

// Instant switches benchmark mode: delays are ignored and requests are
// counted but not kept, so memory stays flat over many requests.
func (s *Server) Instant(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.instant = on
}

// RequireAPIKey makes every endpoint answer 401 unless the request carries
// "Authorization: Bearer key". The 401 message echoes the key presented, as
// some real servers do, so tests can prove that clients redact it.
func (s *Server) RequireAPIKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apiKey = key
}

// SetEmbed configures the embedding endpoints.
func (s *Server) SetEmbed(e Embed) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embed = e
}

// Handler answers a chat request by its content, like a model that reads
// its prompt; it returns false to leave the request to the scripts.
type Handler func(Request) (Reply, bool)

// Handle sets the handler that sees every chat request first.
func (s *Server) Handle(h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handler = h
}

// ScriptFormatted queues replies for structured-output requests (those
// with a format schema, such as memory extraction). They never take the
// chat scripts, so background extraction cannot steal a chat's reply;
// without a queued one they get the empty object {}.
func (s *Server) ScriptFormatted(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.formatted = append(s.formatted, replies...)
}

// next takes the reply for a chat request.
func (s *Server) next(rec *Request) Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, handled := Reply{}, false
	if s.handler != nil {
		h := s.handler
		s.mu.Unlock()
		r, handled = h(*rec)
		s.mu.Lock()
	}
	switch {
	case handled:
	case rec.Format != nil && len(s.formatted) > 0:
		r = s.formatted[0]
		s.formatted = s.formatted[1:]
	case rec.Format != nil:
		r = Reply{Tokens: []string{"{}"}}
	case len(s.scripts) > 0:
		r = s.scripts[0]
		s.scripts = s.scripts[1:]
	default:
		r = s.def
	}
	if s.instant {
		r.FirstDelay, r.ChunkDelay = 0, 0
	}
	return r
}

// begin reads the body and fills what every record has.
func (s *Server) begin(r *http.Request, api string) (*Request, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	rec := &Request{API: api, Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	return rec, err
}

// errorWriter answers with an error body in one protocol's shape.
type errorWriter func(w http.ResponseWriter, status int, msg string)

// gate answers a bad body or a missing key, reporting whether to go on. The
// 401 message echoes the key presented, as some real servers do.
func (s *Server) gate(w http.ResponseWriter, r *http.Request, bodyErr error, fail errorWriter) bool {
	if bodyErr != nil {
		fail(w, http.StatusBadRequest, "llmtest: bad request body: "+bodyErr.Error())
		return false
	}
	if ok, got := s.authorized(r); !ok {
		fail(w, http.StatusUnauthorized, "Incorrect API key provided: "+got)
		return false
	}
	return true
}

// chatReply answers a chat request that gets no stream (bad body, missing
// key, stream off, scripted status) and otherwise returns the reply to play.
func (s *Server) chatReply(w http.ResponseWriter, r *http.Request, rec *Request, bodyErr error, fail errorWriter) (Reply, bool) {
	if !s.gate(w, r, bodyErr, fail) {
		s.finish(rec, false)
		return Reply{}, false
	}
	if !rec.Stream {
		s.finish(rec, false)
		fail(w, http.StatusBadRequest, "llmtest: only streaming chat is supported")
		return Reply{}, false
	}
	reply := s.next(rec)
	if reply.Status >= 400 {
		s.finish(rec, false)
		fail(w, reply.Status, reply.errorText())
		return Reply{}, false
	}
	return reply, true
}

// authorized reports whether r carries the required key, if any, and the
// key it presented.
func (s *Server) authorized(r *http.Request) (bool, string) {
	s.mu.Lock()
	want := s.apiKey
	s.mu.Unlock()
	got, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return want == "" || got == want, got
}

func (s *Server) embedConfig() Embed {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embed
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
