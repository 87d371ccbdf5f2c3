package chroma

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// tokenServer is an HTTP server in Chroma's place that records each
// request's auth headers: it answers the heartbeat (public in Chroma) and
// refuses everything else with 401, as a Chroma with token auth does to a
// client without the token.
type tokenServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []http.Header
}

func startTokenServer(t *testing.T) *tokenServer {
	ts := &tokenServer{}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ts.mu.Lock()
		ts.seen = append(ts.seen, r.Header.Clone())
		ts.mu.Unlock()
		if r.URL.Path == "/api/v2/heartbeat" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"nanosecond heartbeat": 1}`))
			return
		}
		http.Error(w, `{"error":"Unauthorized"}`, http.StatusUnauthorized)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *tokenServer) headers() []http.Header {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.seen
}

// TestTokenSentOnEveryRequest: with CHROMA_TOKEN, every request carries
// it in both headers Chroma's token auth may read, and no error names it.
func TestTokenSentOnEveryRequest(t *testing.T) {
	ts := startTokenServer(t)
	const token = "chroma-token-7f3a"
	_, err := Open(context.Background(), ts.URL, WithToken(token))
	if err == nil {
		t.Fatal("Open succeeded against a server that refuses the database calls")
	}
	if strings.Contains(err.Error(), token) {
		t.Errorf("the error shows the token: %v", err)
	}
	hs := ts.headers()
	if len(hs) < 2 {
		t.Fatalf("want the heartbeat and a database call, the server saw %d requests", len(hs))
	}
	for i, h := range hs {
		if got := h.Get("Authorization"); got != "Bearer "+token {
			t.Errorf("request %d: Authorization = %q, want the Bearer token", i, got)
		}
		if got := h.Get("X-Chroma-Token"); got != token {
			t.Errorf("request %d: X-Chroma-Token = %q, want the token", i, got)
		}
	}
}

// TestNoTokenNoHeader: without a token no auth header goes out.
func TestNoTokenNoHeader(t *testing.T) {
	ts := startTokenServer(t)
	Open(context.Background(), ts.URL)
	for i, h := range ts.headers() {
		if h.Get("Authorization") != "" || h.Get("X-Chroma-Token") != "" {
			t.Errorf("request %d carries auth headers without a token: %v", i, h)
		}
	}
}
