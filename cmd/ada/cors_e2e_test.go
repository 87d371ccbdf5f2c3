package main

import (
	"net/http"
	"testing"
)

// TestCORS: with CORS_ORIGINS, a browser front-end of an allowed origin
// gets its preflight answered and the answer readable; other origins get no
// CORS headers; without the setting, none at all.
func TestCORS(t *testing.T) {
	send := func(p *adaProc, method, origin, path string, preflight bool) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, p.URL+path, nil)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if preflight {
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "authorization, content-type")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	ada := startAda(t, "serve", testEnv(t, map[string]string{"CORS_ORIGINS": "https://chat.example.org", "API_KEY": "k3y-of-16-characters"}))
	cases := []struct {
		name, method, origin string
		preflight            bool
		status               int
		allowOrigin          string
	}{
		{"preflight from an allowed origin", "OPTIONS", "https://chat.example.org", true, 204, "https://chat.example.org"},
		{"request from an allowed origin", "GET", "https://chat.example.org", false, 401, "https://chat.example.org"},
		{"preflight from another origin", "OPTIONS", "https://evil.example.net", true, 405, ""},
		{"request from another origin", "GET", "https://evil.example.net", false, 401, ""},
		{"no origin", "GET", "", false, 401, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := send(ada, tc.method, tc.origin, "/v1/memory", tc.preflight)
			if resp.StatusCode != tc.status || resp.Header.Get("Access-Control-Allow-Origin") != tc.allowOrigin {
				t.Fatalf("status %d, allow-origin %q; want %d, %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), tc.status, tc.allowOrigin)
			}
			if tc.preflight && tc.status == 204 && (resp.Header.Get("Access-Control-Allow-Headers") == "" || resp.Header.Get("Access-Control-Allow-Methods") == "") {
				t.Fatalf("preflight headers %v", resp.Header)
			}
		})
	}
	off := startAda(t, "serve", testEnv(t, nil))
	if resp := send(off, "GET", "https://chat.example.org", "/v1/healthz", false); resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("CORS headers without CORS_ORIGINS: %v", resp.Header)
	}
}
