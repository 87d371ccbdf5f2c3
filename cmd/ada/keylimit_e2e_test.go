package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestOneKeyLimitForTheAPIAndThePage: the program counts wrong keys per
// client for the API and the memory page together, believes the proxy's
// X-Real-IP only because TRUSTED_PROXIES names it, and never refuses
// another client's right key.
func TestOneKeyLimitForTheAPIAndThePage(t *testing.T) {
	const key = "keylimit-e2e-key-0123"
	ada := startAda(t, "serve", testEnv(t, map[string]string{"API_KEY": key, "TRUSTED_PROXIES": "127.0.0.1,::1"}))
	do := func(client, method, path, bearer string, form url.Values) *http.Response {
		t.Helper()
		var req *http.Request
		var err error
		if form != nil {
			req, err = http.NewRequest(method, ada.URL+path, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		} else {
			req, err = http.NewRequest(method, ada.URL+path, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Real-IP", client)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	const apiGuesser, pageGuesser, operator = "203.0.113.7", "192.0.2.44", "198.51.100.2"
	for range 5 {
		if r := do(apiGuesser, "GET", "/v1/info", "wrong-key-0123456789", nil); r.StatusCode != 401 {
			t.Fatalf("wrong key: %d", r.StatusCode)
		}
	}
	if r := do(apiGuesser, "POST", "/ui/login", "", url.Values{"key": {key}}); r.StatusCode != 429 || r.Header.Get("Retry-After") == "" {
		t.Errorf("page login after 5 wrong API keys: %d, Retry-After %q; want 429 with it", r.StatusCode, r.Header.Get("Retry-After"))
	}
	for range 5 {
		if r := do(pageGuesser, "POST", "/ui/login", "", url.Values{"key": {"wrong-key-0123456789"}}); r.StatusCode != 401 {
			t.Fatalf("wrong page key: %d", r.StatusCode)
		}
	}
	if r := do(pageGuesser, "GET", "/metrics", key, nil); r.StatusCode != 429 {
		t.Errorf("/metrics after 5 wrong page keys: %d, want 429", r.StatusCode)
	}
	if r := do(operator, "GET", "/metrics", key, nil); r.StatusCode != 200 {
		t.Errorf("another client's right key: %d", r.StatusCode)
	}
	if r := do(operator, "POST", "/ui/login", "", url.Values{"key": {key}}); r.StatusCode != http.StatusSeeOther {
		t.Errorf("another client's page login: %d", r.StatusCode)
	}
}

// TestShortAPIKeyRefused: a key a guesser could find is refused at start,
// saying why, without showing it.
func TestShortAPIKeyRefused(t *testing.T) {
	_, err := runArgs(t, testEnv(t, map[string]string{"API_KEY": "short-key"}), "serve")
	if err == nil || !strings.Contains(err.Error(), "API_KEY") || !strings.Contains(err.Error(), "at least 16 characters") || strings.Contains(err.Error(), "short-key") {
		t.Errorf("API_KEY of 9 characters: %v", err)
	}
}
