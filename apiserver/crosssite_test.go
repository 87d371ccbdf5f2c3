package apiserver

import (
	"net/http"
	"strings"
	"testing"
)

// sendFromPage sends what a browser sends for a page of origin: its
// Sec-Fetch-Site and Origin headers.
func sendFromPage(t *testing.T, method, url, site, origin string) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if site != "" {
		req.Header.Set("Sec-Fetch-Site", site)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Without API_KEY, a page of another site can still send a browser's
// "simple" requests that need no preflight, such as a multipart POST to
// /v1/ocr/extract or a form post: they are refused unless the page's
// origin is in CORS_ORIGINS. The browser says where a request comes from
// (Sec-Fetch-Site), and a page cannot change it. Navigations (GET) stay
// open: a member link followed from a chat app is one.
func TestCrossSiteWritesRefusedWithoutKey(t *testing.T) {
	url, reached := serveWithDoors(t, func(c *Config) { c.CORSOrigins = []string{"https://chat.example.org"} })
	for _, c := range []struct {
		method, site, origin string
		want                 int
	}{
		{"POST", "cross-site", "http://attacker.example", http.StatusForbidden},
		{"POST", "cross-site", "null", http.StatusForbidden},
		{"POST", "cross-site", "https://chat.example.org", http.StatusOK},
		{"POST", "same-origin", "", http.StatusOK},
		{"POST", "", "", http.StatusOK}, // not a browser: curl, a front-end's server
		{"GET", "cross-site", "", http.StatusOK},
	} {
		path := "/mcp"
		if c.method == "GET" {
			path = "/openapi.json"
		}
		before := reached.Load()
		got := sendFromPage(t, c.method, url+path, c.site, c.origin)
		if got != c.want {
			t.Errorf("%s %s from site %q origin %q: %d, want %d", c.method, path, c.site, c.origin, got, c.want)
		}
		if c.want == http.StatusForbidden && reached.Load() != before {
			t.Errorf("a refused cross-site request reached /mcp")
		}
	}
	// With API_KEY the key is the wall: a cross-site page cannot send it.
	keyed, _ := serveWithDoors(t, func(c *Config) { c.APIKey = "a-key-of-16-chars-or-more" })
	if got := sendFromPage(t, "POST", keyed+"/mcp", "cross-site", "http://attacker.example"); got != http.StatusUnauthorized {
		t.Errorf("with API_KEY a cross-site POST without the key: %d, want 401", got)
	}
}
