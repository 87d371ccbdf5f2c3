package apiserver

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ada-chat/ada/apiserver/keylimit"
	"github.com/ada-chat/ada/apiserver/ui"
)

const limitKey = "a-key-of-16-char"

// keyClient calls a server through a proxy on loopback that names the
// client in X-Real-IP.
type keyClient struct {
	t    *testing.T
	base string
	ip   string
}

type answer struct {
	status int
	header http.Header
	body   map[string]any
}

func (k keyClient) call(method, path, key string, form url.Values) answer {
	k.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, k.base+path, body)
	if err != nil {
		k.t.Fatal(err)
	}
	req.Header.Set("X-Real-IP", k.ip)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		k.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header}
	_ = json.Unmarshal(raw, &a.body)
	return a
}

// TestWrongKeysLimitedAtEveryDoor: wrong keys on /v1, /mcp, /metrics,
// healthz and the page's login add up per client address; the address is
// then answered 429 with Retry-After, in the route's error shape, even
// with the right key, while other addresses with the right key get in.
func TestWrongKeysLimitedAtEveryDoor(t *testing.T) {
	keys := keylimit.New(keylimit.Options{Trusted: keylimit.Networks{netip.MustParsePrefix("127.0.0.1/32")}})
	mcp := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{}")) })
	svc := realCore(t)
	page := ui.Handler(svc, ui.Options{APIKey: limitKey, Keys: keys})
	srv := New(svc, Deps{MCP: mcp, UI: page, Gatherer: prometheus.NewRegistry(), Keys: keys},
		testConfig(t, func(c *Config) { c.APIKey = limitKey }), slog.New(slog.DiscardHandler))
	base := serveOnLoopback(t, srv, nil)
	guesser := keyClient{t, base, "203.0.113.7"}
	for _, door := range []struct{ method, path string }{
		{"GET", "/v1/info"}, {"POST", "/mcp"}, {"GET", "/metrics"}, {"POST", "/v1/chat/completions"},
	} {
		if a := guesser.call(door.method, door.path, "wrong-guess-0000", nil); a.status != 401 {
			t.Fatalf("%s %s with a wrong key: %d", door.method, door.path, a.status)
		}
	}
	// healthz shows more with the key: a wrong one counts there too.
	if a := guesser.call("GET", "/v1/healthz", "wrong-guess-0000", nil); a.status != 200 || a.body["config"] != nil {
		t.Fatalf("healthz with a wrong key: %d %v", a.status, a.body)
	}
	for _, door := range []struct{ method, path string }{{"GET", "/metrics"}, {"POST", "/mcp"}, {"GET", "/v1/info"}} {
		a := guesser.call(door.method, door.path, limitKey, nil)
		if a.status != 429 || a.body["detail"] == nil {
			t.Errorf("%s %s with the right key after 5 wrong ones: %d %v, want 429 {detail}", door.method, door.path, a.status, a.body)
		}
		if s, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
			t.Errorf("Retry-After %q", a.header.Get("Retry-After"))
		}
	}
	if a := guesser.call("GET", "/v1/models", limitKey, nil); a.status != 429 || a.body["error"] == nil {
		t.Errorf("OpenAI route: %d %v, want 429 in OpenAI's shape", a.status, a.body)
	}
	if a := guesser.call("POST", "/ui/login", "", url.Values{"key": {limitKey}}); a.status != 429 || a.header.Get("Retry-After") == "" {
		t.Errorf("page login after wrong API keys: %d, want 429 with Retry-After", a.status)
	}
	// Healthz stays open, without the keyed fields.
	if a := guesser.call("GET", "/v1/healthz", limitKey, nil); a.status != 200 || a.body["config"] != nil {
		t.Errorf("healthz from a blocked address: %d, config %v", a.status, a.body["config"])
	}

	operator := keyClient{t, base, "198.51.100.2"}
	if a := operator.call("GET", "/metrics", limitKey, nil); a.status != 200 {
		t.Errorf("another address with the right key: %d", a.status)
	}

	// Wrong keys on the page's login count at the API's doors too.
	pageGuesser := keyClient{t, base, "192.0.2.44"}
	for range keylimit.DefaultMax {
		if a := pageGuesser.call("POST", "/ui/login", "", url.Values{"key": {"wrong-guess-0000"}}); a.status != 401 {
			t.Fatalf("page login with a wrong key: %d", a.status)
		}
	}
	if a := pageGuesser.call("GET", "/metrics", limitKey, nil); a.status != 429 {
		t.Errorf("/metrics after wrong keys on the page: %d, want 429", a.status)
	}
}
