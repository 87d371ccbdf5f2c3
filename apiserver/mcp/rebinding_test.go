package mcp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The SDK's own DNS-rebinding check is on: a request that came in on a
// loopback address with a Host that is not a loopback name is refused with
// 403 and calls no tool; one for localhost is answered. (apiserver gives
// the SDK the local address where this rule is its own; see mcpContext.)
func TestRebindingIsRefused(t *testing.T) {
	fake := &fakeMemories{}
	srv := httptest.NewServer(Handler(fake, Options{}))
	defer srv.Close()
	post := func(host string) int {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_memory","arguments":{"text":"The door code is 4711."}}}`))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if status := post("attacker.example:7000"); status != http.StatusForbidden {
		t.Errorf("a foreign Host on loopback: %d, want 403", status)
	}
	if len(fake.created) != 0 {
		t.Fatalf("a rebound request wrote %d memories", len(fake.created))
	}
	if status := post("localhost"); status != http.StatusOK || len(fake.created) != 1 {
		t.Errorf("Host localhost: %d and %d memories, want 200 and 1", status, len(fake.created))
	}
}
