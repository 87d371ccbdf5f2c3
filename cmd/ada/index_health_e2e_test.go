package main

import (
	"strings"
	"testing"
	"time"
)

// TestHealthSaysTheIndexLoaded: /v1/healthz names the state of the
// embedded store's vector index, and once it is "ready" the log has said
// so with its size: what an operator reads after a restart at a million
// documents, when vector searches scan the file for a few seconds.
func TestHealthSaysTheIndexLoaded(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, map[string]string{"LOG_LEVEL": "INFO"}))
	var health struct {
		Store struct {
			Index string `json:"index"`
		} `json:"chroma"`
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if st := ada.call("GET", "/v1/healthz", nil, &health); st != 200 {
			t.Fatalf("healthz: %d", st)
		}
		if health.Store.Index == "ready" {
			break
		}
		if health.Store.Index != "loading" {
			t.Fatalf("chroma.index %q, want loading or ready", health.Store.Index)
		}
		<-tick.C
	}
	if logs := ada.logs.String(); !strings.Contains(logs, `msg="vector index loaded" documents=0`) {
		t.Fatalf("the log does not say the index loaded:\n%s", logs)
	}
}
