package chroma

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// requestLog records the paths of the requests sent to Chroma.
type requestLog struct {
	mu    sync.Mutex
	paths []string
	next  http.RoundTripper
}

func (l *requestLog) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.paths = append(l.paths, r.URL.Path)
	l.mu.Unlock()
	return l.next.RoundTrip(r)
}

func (l *requestLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.paths
	l.paths = nil
	return p
}

// TestHealthProbeCountsNothing: a health probe on Chroma asks the server
// whether it answers and its version, and reads no documents (counting by
// type reads the ids of every memory: too dear for a frequent probe).
func TestHealthProbeCountsNothing(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "health")
	if err := s.Put(ctx, testMemory("Sam likes tea", time.Now().UTC())); err != nil {
		t.Fatal(err)
	}
	log := &requestLog{next: http.DefaultTransport}
	s.c.http.Transport = log
	h := core.New(core.Deps{Store: s}, core.Options{}).Health(ctx)
	if h.StoreErr != nil || h.Store.Backend != "chroma" || h.Store.Version == "" || h.Store.Heartbeat == 0 {
		t.Fatalf("health = %+v", h)
	}
	paths := log.take()
	if len(paths) > 2 {
		t.Errorf("a health probe sent %d requests, want at most 2: %v", len(paths), paths)
	}
	for _, p := range paths {
		if strings.HasSuffix(p, "/get") || strings.HasSuffix(p, "/count") || strings.HasSuffix(p, "/query") {
			t.Errorf("a health probe read documents: %v", paths)
		}
	}
}
