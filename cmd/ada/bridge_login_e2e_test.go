package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// health is the part of /v1/healthz these tests read.
type health struct {
	OK     bool `json:"ok"`
	Matrix *struct {
		OK    bool    `json:"ok"`
		State string  `json:"state"`
		Error *string `json:"error"`
	} `json:"matrix"`
}

// waitMatrix polls /v1/healthz until the bridge is in state, and returns
// its error.
func waitMatrix(t *testing.T, p *adaProc, state string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var h health
		if code := p.call("GET", "/v1/healthz", nil, &h); code != 200 {
			t.Fatalf("healthz status %d", code)
		}
		if h.Matrix == nil {
			t.Fatalf("healthz has no matrix member")
		}
		// Before its first try the bridge is connecting without a reason yet.
		if h.Matrix.State == state && (state != "connecting" || h.Matrix.Error != nil) {
			if h.Matrix.OK != (state == "running") {
				t.Errorf("matrix.ok = %v in state %s", h.Matrix.OK, state)
			}
			if h.Matrix.Error == nil {
				return ""
			}
			return *h.Matrix.Error
		}
		if time.Now().After(deadline) {
			t.Fatalf("matrix state %q, want %q\nlogs:\n%s", h.Matrix.State, state, p.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestUpServesWhileTheHomeserverIsDown: `ada up` with a homeserver that is
// not there serves the API; the bridge retries in the background and healthz
// says why it is not running; the library's request errors stay out of the
// log.
func TestUpServesWhileTheHomeserverIsDown(t *testing.T) {
	llm := llmtest.New(t)
	p := startAda(t, "up", testEnv(t, map[string]string{
		"LOG_LEVEL":   "INFO",
		"LLM_BACKEND": "ollama", "LLM_BASE_URL": llm.URL(), "LLM_MODEL": llmtest.ModelName,
		"MATRIX_HOMESERVER": llmtest.ClosedURL(t), "MATRIX_USER_ID": "@ada:example.org", "MATRIX_ACCESS_TOKEN": "syt_secret_token",
	}))
	msg := waitMatrix(t, p, "connecting")
	t.Logf("matrix.error: %s", msg)
	if !strings.Contains(msg, "cannot reach the homeserver") || !strings.Contains(msg, "connection refused") {
		t.Errorf("matrix.error = %q, want it to say the homeserver cannot be reached", msg)
	}
	llm.Script(llmtest.Reply{Tokens: []string{"still here"}})
	var chat struct{ Response string }
	if code := p.call("POST", "/v1/chat", map[string]any{"prompt": "hi"}, &chat); code != 200 || chat.Response != "still here" {
		t.Errorf("chat while the bridge retries: %d %q", code, chat.Response)
	}
	logs := p.logs.String()
	if strings.Contains(logs, "level=ERROR") || strings.Contains(logs, "refused MATRIX") || strings.Contains(logs, "syt_secret_token") {
		t.Errorf("the log blames the token, shows it, or has errors while the homeserver is down:\n%s", logs)
	}
	if len(logLines(p, "level=WARN", "cannot reach the homeserver", "next_retry=")) == 0 {
		t.Errorf("no retry warning with the next retry time:\n%s", logs)
	}
}

// TestUpKeepsServingWhenCredentialsAreRefused: a homeserver that refuses the
// token or the password stops the bridge at once, healthz names the setting,
// and the API keeps serving.
func TestUpKeepsServingWhenCredentialsAreRefused(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	for setting, creds := range map[string]map[string]string{
		"MATRIX_ACCESS_TOKEN": {"MATRIX_ACCESS_TOKEN": "syt_not_a_real_token"},
		"MATRIX_PASSWORD":     {"MATRIX_PASSWORD": "wrong-password"},
	} {
		t.Run(setting, func(t *testing.T) {
			env := testEnv(t, map[string]string{"MATRIX_HOMESERVER": hs.URL(), "MATRIX_USER_ID": acct.UserID.String()})
			for k, v := range creds {
				env[k] = v
			}
			p := startAda(t, "up", env)
			msg := waitMatrix(t, p, "stopped")
			t.Logf("matrix.error: %s", msg)
			if !strings.Contains(msg, "refused "+setting) || strings.Contains(msg, "cannot reach") {
				t.Errorf("matrix.error = %q, want it to say the homeserver refused %s", msg, setting)
			}
			if strings.Contains(msg, creds[setting]) {
				t.Errorf("matrix.error shows the secret: %q", msg)
			}
			if len(logLines(p, "cannot reach the homeserver")) != 0 {
				t.Errorf("refused credentials were retried:\n%s", p.logs.String())
			}
			var h health
			if code := p.call("GET", "/v1/healthz", nil, &h); code != 200 || !h.OK {
				t.Errorf("healthz after the bridge stopped: %d ok=%v", code, h.OK)
			}
		})
	}
}
