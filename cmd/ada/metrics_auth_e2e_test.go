package main

import (
	"net/http"
	"testing"
)

// scrapeStatus is the status of GET /metrics with the given headers.
func scrapeStatus(t *testing.T, ada *adaProc, headers map[string]string) int {
	t.Helper()
	return getStatus(t, ada, "/metrics", headers)
}

// getStatus is the status of GET path with the given headers.
func getStatus(t *testing.T, ada *adaProc, path string, headers map[string]string) int {
	t.Helper()
	req, err := http.NewRequest("GET", ada.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestMetricsToken: Prometheus scrapes with METRICS_TOKEN, which opens
// /metrics and nothing else; API_KEY still works there; wrong tokens are
// counted with the wrong keys, so a guesser gets 429 like at every door.
func TestMetricsToken(t *testing.T) {
	const apiKey, token = "the-api-key-0123456789", "the-metrics-token-0123"
	ada := startAda(t, "serve", testEnv(t, map[string]string{"API_KEY": apiKey, "METRICS_TOKEN": token}))
	bearer := func(s string) map[string]string { return map[string]string{"Authorization": "Bearer " + s} }
	if st := scrapeStatus(t, ada, bearer(token)); st != 200 {
		t.Errorf("/metrics with METRICS_TOKEN: %d", st)
	}
	if st := scrapeStatus(t, ada, bearer(apiKey)); st != 200 {
		t.Errorf("/metrics with API_KEY: %d", st)
	}
	if st := ada.callWithKey(token, "GET", "/v1/info", nil, nil); st != 401 {
		t.Errorf("METRICS_TOKEN opens /v1/info: %d", st)
	}
	if st := scrapeStatus(t, ada, nil); st != 401 {
		t.Errorf("/metrics without a token: %d", st)
	}
	for range 3 { // with the two above, 5 wrong credentials
		if st := scrapeStatus(t, ada, bearer("a-wrong-guess-0123456")); st != 401 {
			t.Errorf("/metrics with a wrong token: %d", st)
		}
	}
	if st := scrapeStatus(t, ada, bearer(token)); st != 429 {
		t.Errorf("after 5 wrong credentials, the right token: %d, want 429", st)
	}
}

// TestMetricsAllowedNetworks: METRICS_ALLOWED_NETWORKS lets the named
// addresses scrape without API_KEY and refuses the others with 403; behind
// a trusted proxy the client it names is the one checked.
func TestMetricsAllowedNetworks(t *testing.T) {
	const apiKey = "the-api-key-0123456789"
	local := startAda(t, "serve", testEnv(t, map[string]string{"API_KEY": apiKey, "METRICS_ALLOWED_NETWORKS": "127.0.0.0/8,::1"}))
	if st := scrapeStatus(t, local, nil); st != 200 {
		t.Errorf("/metrics from an allowed address without a key: %d", st)
	}
	if st := local.call("GET", "/v1/info", nil, nil); st != 401 {
		t.Errorf("an allowed scraper's address opens /v1/info: %d", st)
	}

	proxied := startAda(t, "serve", testEnv(t, map[string]string{"API_KEY": apiKey,
		"METRICS_ALLOWED_NETWORKS": "10.0.0.0/8", "TRUSTED_PROXIES": "127.0.0.1"}))
	for realIP, want := range map[string]int{"10.1.2.3": 200, "192.168.1.9": 403, "": 403} {
		h := map[string]string{}
		if realIP != "" {
			h["X-Real-IP"] = realIP
		}
		if st := scrapeStatus(t, proxied, h); st != want {
			t.Errorf("/metrics for X-Real-IP %q through a trusted proxy: %d, want %d", realIP, st, want)
		}
	}
	// The API key does not open /metrics from outside the networks.
	if st := scrapeStatus(t, proxied, map[string]string{"X-Real-IP": "192.168.1.9", "Authorization": "Bearer " + apiKey}); st != 403 {
		t.Errorf("/metrics with API_KEY from outside the networks: %d, want 403", st)
	}
}
