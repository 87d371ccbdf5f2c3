package main

import (
	"context"
	"io"
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

// TestUpEndsWhenCredentialsAreRefused: a homeserver that refuses the token
// or the password stops the bridge at once (waiting cannot fix it), and
// `ada up` ends with an error that names the setting, so that its service
// manager restarts it and the operator sees why; healthz staying green
// while the bridge is dead kept systemd from ever noticing.
func TestUpEndsWhenCredentialsAreRefused(t *testing.T) {
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
			logs := &syncBuffer{}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := run(ctx, runEnv{args: []string{"up"}, lookupEnv: mapEnv(env), stdout: io.Discard, stderr: logs})
			if ctx.Err() != nil {
				t.Fatalf("ada up still runs a minute after the homeserver refused %s\nlogs:\n%s", setting, logs.String())
			}
			t.Logf("ada up: %v", err)
			if err == nil || !strings.Contains(err.Error(), "refused "+setting) || !strings.Contains(err.Error(), "restart") {
				t.Errorf("ada up ended with %v, want an error naming %s and the restart", err, setting)
			}
			if strings.Contains(err.Error()+logs.String(), creds[setting]) {
				t.Errorf("the error or the log shows the secret")
			}
			if strings.Contains(logs.String(), "cannot reach the homeserver") {
				t.Errorf("refused credentials were retried:\n%s", logs.String())
			}
		})
	}
}
