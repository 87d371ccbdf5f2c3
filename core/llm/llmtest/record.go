package llmtest

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/ada-chat/ada/core"
)

// Request is what the fake received, decoded.
type Request struct {
	API    string // "ollama" or "openai"
	Method string
	Path   string
	Header http.Header
	Body   []byte

	Model    string
	Messages []core.Message
	// Think is Ollama's think flag as sent; nil when the field was absent.
	// A string level such as "high" counts as true.
	Think  *bool
	Stream bool
	// Format is the structured-output schema as sent: Ollama's "format"
	// (a schema, or the string "json") or OpenAI's
	// response_format.json_schema.schema. Nil when absent or null.
	Format json.RawMessage
	// Input holds the texts of an embedding request.
	Input []string

	// Finished is set once the fake is done with the request.
	Finished bool
	// Cancelled is set when the client went away before the reply was
	// complete (its context ended or a write failed).
	Cancelled bool
}

// IsChat reports whether r is a chat request of either protocol.
func (r Request) IsChat() bool {
	return r.Path == "/api/chat" || r.Path == "/v1/chat/completions"
}

// add records a new request and returns its handle for finish.
func (s *Server) add(rec *Request) *Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
	if !s.instant {
		s.reqs = append(s.reqs, rec)
	}
	s.notifyLocked()
	return rec
}

// finish marks rec done, and cancelled if the client went away.
func (s *Server) finish(rec *Request, gone bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec.Finished = true
	if gone {
		rec.Cancelled = true
		s.cancelled++
	}
	s.notifyLocked()
}

// notifyLocked wakes every waiter; callers hold s.mu.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Requests returns a copy of the requests received so far, oldest first.
// Instant mode keeps none.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.reqs))
	for i, r := range s.reqs {
		out[i] = *r
	}
	return out
}

// ChatRequests returns the free-text chat requests of either protocol
// (answers and summaries), oldest first; structured-output requests such as
// memory extraction are in FormattedRequests.
func (s *Server) ChatRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.IsChat() && r.Format == nil {
			out = append(out, r)
		}
	}
	return out
}

// FormattedRequests returns the chat requests that asked for structured
// output (a format schema), oldest first.
func (s *Server) FormattedRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.IsChat() && r.Format != nil {
			out = append(out, r)
		}
	}
	return out
}

// Count is the number of requests received, instant mode included.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

// WaitRequests blocks until at least n requests have arrived, or ctx ends.
func (s *Server) WaitRequests(ctx context.Context, n int) error {
	return s.wait(ctx, func() bool { return s.count >= n })
}

// WaitCancelled blocks until at least n requests were cancelled by their
// client, or ctx ends. The fake notices a disconnect a moment after the
// client returns, so tests wait rather than read Cancelled at once.
func (s *Server) WaitCancelled(ctx context.Context, n int) error {
	return s.wait(ctx, func() bool { return s.cancelled >= n })
}

func (s *Server) wait(ctx context.Context, ok func() bool) error {
	for {
		s.mu.Lock()
		done, changed := ok(), s.changed
		s.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
