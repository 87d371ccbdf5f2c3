package apiserver

import (
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// serveWithDoors runs the real server with an MCP and a page handler that
// count what reaches them, so a test sees that a refused request reached
// nothing behind the front door.
func serveWithDoors(t *testing.T, set func(*Config)) (url string, reached *atomic.Int32) {
	t.Helper()
	reached = &atomic.Int32{}
	door := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		reached.Add(1)
		w.WriteHeader(http.StatusOK)
	})
	srv := New(&fakeService{}, Deps{MCP: door, UI: door}, testConfig(t, func(c *Config) {
		c.RequestTimeout = 10 * time.Second
		if set != nil {
			set(c)
		}
	}), slog.New(slog.DiscardHandler))
	return serveOnLoopback(t, srv, nil), reached
}

// sendHost sends a request with the given Host header and returns the
// status and body.
func sendHost(t *testing.T, method, url, host string) (int, []byte) {
	t.Helper()
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	}
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// Every door on the port, in the paths' order of the server: without
// API_KEY each refuses a foreign Host.
var allDoors = []struct{ method, path string }{
	{"GET", "/v1/healthz"}, {"GET", "/v1/memory"}, {"POST", "/mcp"}, {"GET", "/ui/"}, {"GET", "/ui"},
	{"GET", "/docs"}, {"GET", "/metrics"}, {"GET", "/openapi.json"}, {"GET", "/no/such/path"}, {"OPTIONS", "/v1/chat"},
}

// Without API_KEY, a request whose Host is not a loopback name or address
// (or PUBLIC_URL's host) is refused with 403 {"detail"} at every door,
// /mcp and /ui included, before anything behind them runs: a page that
// rebinds its own name to 127.0.0.1 gets nothing. Loopback names and
// addresses in every spelling, and PUBLIC_URL's host, are answered.
func TestForeignHostIsRefusedWithoutKey(t *testing.T) {
	url, reached := serveWithDoors(t, func(c *Config) { c.PublicURL = "https://Ada.Example.org/base" })
	foreign := []string{"attacker.example", "attacker.example:7000", "localhost.attacker.example", "127.0.0.1.nip.io",
		"0.0.0.0:7000", "[::]:7000", "192.168.1.5", "example.org", "ada.example.org.attacker.example"}
	for _, host := range foreign {
		for _, d := range allDoors {
			status, body := sendHost(t, d.method, url+d.path, host)
			var e struct{ Detail string }
			if status != http.StatusForbidden || json.Unmarshal(body, &e) != nil || !strings.Contains(e.Detail, "API_KEY") || !strings.Contains(e.Detail, "PUBLIC_URL") {
				t.Errorf("%s %s with Host %q: %d %.200s; want 403 with a detail naming API_KEY and PUBLIC_URL", d.method, d.path, host, status, body)
			}
		}
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("%d refused requests reached /mcp or /ui", n)
	}
	port := url[strings.LastIndex(url, ":"):]
	for _, host := range []string{"127.0.0.1" + port, "localhost", "LocalHost:1", "ada.localhost" + port, "[::1]" + port,
		"127.8.9.10", "[::ffff:127.0.0.1]:80", "ada.example.org", "ADA.example.org:443", "localhost."} {
		if status, body := sendHost(t, "GET", url+"/openapi.json", host); status != http.StatusOK {
			t.Errorf("GET /openapi.json with Host %q: %d %.200s; want 200", host, status, body)
		}
	}
	before := reached.Load()
	if status, _ := sendHost(t, "POST", url+"/mcp", "localhost"+port); status != http.StatusOK || reached.Load() != before+1 {
		t.Errorf("POST /mcp with Host localhost: %d; want it to reach the MCP handler", status)
	}
}

// With API_KEY set the key is the wall: any Host is answered (behind a
// reverse proxy of any name), and still needs the key.
func TestAnyHostIsAnsweredWithKey(t *testing.T) {
	const key = "a-key-of-16-chars-or-more"
	url, _ := serveWithDoors(t, func(c *Config) { c.APIKey = key })
	if status, body := sendHost(t, "GET", url+"/openapi.json", "ada.internal:7000"); status != http.StatusOK {
		t.Errorf("/openapi.json with a foreign Host and a key set: %d %.200s", status, body)
	}
	if status, body := sendHost(t, "GET", url+"/v1/memory", "ada.internal:7000"); status != http.StatusUnauthorized {
		t.Errorf("GET /v1/memory without the key: %d %s; want 401", status, body)
	}
}

// The loopback rule, on its own.
func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "localhost:7000": true, "a.b.localhost": true, "127.0.0.1": true, "127.255.0.3:1": true,
		"[::1]:7000": true, "::1": true, "[::ffff:127.0.0.1]": true,
		"": false, "localhostx": false, "xlocalhost": false, "localhost.example": false, "10.0.0.1": false,
		"[::2]": false, "0.0.0.0": false, "128.0.0.1": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}

// The MCP SDK's rebinding check gets the connection's local address where
// its rule (loopback Host only) is Ada's own, and not where Ada admits a
// request for another reason (API_KEY set, PUBLIC_URL's host), which the
// SDK would refuse behind a reverse proxy on loopback.
func TestMCPSeesLocalAddressWhereItsRuleHolds(t *testing.T) {
	for _, c := range []struct {
		name, host string
		set        func(*Config)
		want       bool
	}{
		{"loopback without key", "127.0.0.1", nil, true},
		{"localhost without key", "localhost:7000", nil, true},
		{"PUBLIC_URL's host", "ada.example.org", func(c *Config) { c.PublicURL = "https://ada.example.org" }, false},
		{"a *.localhost name", "ada.localhost", nil, false},
		{"localhost in capitals", "LocalHost:7000", nil, false},
		{"localhost with a trailing dot", "localhost.", nil, false},
		{"a key set", "ada.internal", func(c *Config) { c.APIKey = "a-key-of-16-chars-or-more" }, false},
	} {
		var sawAddr atomic.Bool
		srv := New(&fakeService{}, Deps{MCP: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
			sawAddr.Store(ok)
		})}, testConfig(t, c.set), slog.New(slog.DiscardHandler))
		url := serveOnLoopback(t, srv, nil)
		req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(`{}`))
		req.Host = c.host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer a-key-of-16-chars-or-more")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || sawAddr.Load() != c.want {
			t.Errorf("%s: status %d, the MCP handler saw the local address: %v, want %v", c.name, resp.StatusCode, sawAddr.Load(), c.want)
		}
	}
}
