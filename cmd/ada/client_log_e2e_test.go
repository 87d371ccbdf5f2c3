package main

import (
	"testing"
)

// TestRequestLogNamesTheClient: each request's log line carries the
// client's address: the one a proxy named in TRUSTED_PROXIES gives, else
// the peer's, whatever headers the peer sends.
func TestRequestLogNamesTheClient(t *testing.T) {
	const claimed = "203.0.113.7"
	for _, tc := range []struct {
		name, trusted, want string
	}{
		{"behind a trusted proxy", "127.0.0.1,::1", claimed},
		{"from an untrusted peer", "", "127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ada := startAda(t, "serve", testEnv(t, map[string]string{"TRUSTED_PROXIES": tc.trusted, "LOG_LEVEL": "INFO"}))
			if st := getStatus(t, ada, "/v1/healthz", map[string]string{"X-Real-IP": claimed}); st != 200 {
				t.Fatalf("healthz: %d", st)
			}
			ada.stop() // the line is written by the time the server has stopped
			if got := logLines(ada, "msg=request", "path=/v1/healthz", "client="+tc.want+" "); len(got) != 1 {
				t.Errorf("no request line with client=%s:\n%s", tc.want, ada.logs.String())
			}
		})
	}
}
