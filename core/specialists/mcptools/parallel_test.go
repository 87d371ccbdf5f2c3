package mcptools

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The servers start at once, so that a slow one delays Ada's start by its
// own time only: each of these two servers (the official SDK's, over
// streamable HTTP) answers its first request only once the other has been
// asked too. Started one after the other, the first would give up waiting
// and be down.
func TestServersStartAtOnce(t *testing.T) {
	var arrived sync.WaitGroup
	arrived.Add(2)
	bothAsked := make(chan struct{})
	go func() {
		arrived.Wait()
		close(bothAsked)
	}()
	server := func(name string) *httptest.Server {
		srv := mcp.NewServer(&mcp.Implementation{Name: name, Version: "test"}, nil)
		srv.AddTool(&mcp.Tool{Name: "ping", InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil
			})
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
		var first sync.Once
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			first.Do(arrived.Done)
			select {
			case <-bothAsked:
				h.ServeHTTP(w, r)
			case <-time.After(5 * time.Second): // the other server was never asked meanwhile
				http.Error(w, "the other server was not asked", http.StatusServiceUnavailable)
			}
		}))
		t.Cleanup(s.Close)
		return s
	}
	a, b := server("a"), server("b")
	m := startManager(t, Options{StartTimeout: 20 * time.Second}, Server{Name: "a", URL: a.URL}, Server{Name: "b", URL: b.URL})
	for _, st := range m.Status() {
		if !st.Up || st.Tools != 1 {
			t.Errorf("%s: %+v", st.Name, st)
		}
	}
}
