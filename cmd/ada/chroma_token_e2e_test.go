package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestChromaTokenReachesChroma: CHROMA_TOKEN set, the commands that open
// the Chroma store send it (here ada export, against an HTTP server in
// Chroma's place that records headers and refuses all but the heartbeat,
// as a Chroma with token auth refuses a client without it), and the
// error never shows it.
func TestChromaTokenReachesChroma(t *testing.T) {
	const token = "chroma-token-from-env-5d1e"
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization")+"|"+r.Header.Get("X-Chroma-Token"))
		mu.Unlock()
		if r.URL.Path == "/api/v2/heartbeat" {
			w.Write([]byte(`{"nanosecond heartbeat": 1}`))
			return
		}
		http.Error(w, `{"error":"Unauthorized"}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	env := testEnv(t, map[string]string{"VECTORDB_URL": srv.URL, "CHROMA_TOKEN": token})
	out, err := runCmd(context.Background(), env, nil, "export", filepath.Join(t.TempDir(), "x.jsonl"))
	if err == nil {
		t.Fatalf("export against a refusing Chroma succeeded: %s", out)
	}
	if strings.Contains(err.Error()+out, token) {
		t.Errorf("the token is shown: %v %s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) < 2 {
		t.Fatalf("Chroma saw %d requests, want the heartbeat and more", len(auth))
	}
	for i, a := range auth {
		if a != "Bearer "+token+"|"+token {
			t.Errorf("request %d: Authorization|X-Chroma-Token = %q", i, a)
		}
	}
}
