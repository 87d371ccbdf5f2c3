package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// TestConcurrentWritersAndReadersLoseNothing hammers the real memory API
// with 8 writers and 8 readers for 20 s (3 s with -short). No request may
// fail, nothing may report "database is locked", and every write the API
// acknowledged must be in the database afterwards.
func TestConcurrentWritersAndReadersLoseNothing(t *testing.T) {
	const writers, readers, maxRequests = 8, 8, 1_000_000
	duration := 20 * time.Second
	if testing.Short() {
		duration = 3 * time.Second
	}
	env := testEnv(t, map[string]string{"LOG_LEVEL": "INFO"})
	p := startAda(t, "serve", env)
	client := &http.Client{Timeout: 30 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: writers + readers}}
	defer client.CloseIdleConnections()

	var (
		mu       sync.Mutex
		acked    = map[string]string{} // id → text
		failures []string
		reads    int
	)
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, fmt.Sprintf(format, args...))
	}
	deadline := time.Now().Add(duration)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := 0; i < maxRequests && time.Now().Before(deadline); i++ {
				text := fmt.Sprintf("writer %d wrote note %d about topic w%dn%d", w, i, w, i)
				var m memoryRecord
				if st, err := send(client, "POST", p.URL+"/v1/memory", map[string]any{"text": text}, &m); err != nil || st != http.StatusCreated || m.ID == "" {
					fail("POST /v1/memory: status %d, id %q, err %v", st, m.ID, err)
					continue
				}
				mu.Lock()
				acked[m.ID] = text
				mu.Unlock()
			}
		})
	}
	for r := range readers {
		wg.Go(func() {
			for i := 0; i < maxRequests && time.Now().Before(deadline); i++ {
				path := "/v1/memory?limit=20"
				if i%2 == 0 {
					path = "/v1/memory?search=" + url.QueryEscape(fmt.Sprintf("note about topic w%dn%d", (r+i)%writers, i))
				}
				var list memoryList
				if st, err := send(client, "GET", p.URL+path, nil, &list); err != nil || st != http.StatusOK {
					fail("GET %s: status %d, err %v", path, st, err)
					continue
				}
				mu.Lock()
				reads++
				mu.Unlock()
			}
		})
	}
	wg.Wait()

	for i, f := range failures {
		if i == 10 {
			t.Errorf("… and %d more failures", len(failures)-10)
			break
		}
		t.Error(f)
	}
	if len(acked) == 0 || reads == 0 {
		t.Fatalf("the load did not run: %d writes, %d reads", len(acked), reads)
	}
	t.Logf("%v: %d acknowledged writes, %d reads", duration, len(acked), reads)
	p.stop()
	for _, bad := range []string{"database is locked", "SQLITE_BUSY", "level=ERROR", `"level":"ERROR"`} {
		if strings.Contains(p.logs.String(), bad) {
			t.Errorf("the logs report %q", bad)
		}
	}

	db, err := storage.Open(context.Background(), filepath.Join(env["DATA_DIR"], "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stored, err := db.List(context.Background(), core.Filter{Type: core.DocMemory}, len(acked)+1000)
	if err != nil {
		t.Fatal(err)
	}
	byID := make(map[string]string, len(stored))
	for _, d := range stored {
		byID[d.ID] = d.Text
	}
	lost := 0
	for id, text := range acked {
		if byID[id] != text {
			if lost++; lost <= 10 {
				t.Errorf("acknowledged memory %s (%q) is missing", id, text)
			}
		}
	}
	if lost > 0 || len(failures) > 0 {
		t.Fatalf("%d of %d acknowledged writes lost, %d failed requests", lost, len(acked), len(failures))
	}
	if len(stored) != len(acked) {
		t.Fatalf("the database holds %d memories, but %d writes were acknowledged and none failed", len(stored), len(acked))
	}
}

// send is a goroutine-safe request: it reports errors instead of failing
// the test, and decodes a JSON answer into out.
func send(c *http.Client, method, u string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return 0, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return resp.StatusCode, fmt.Errorf("body %.200q: %w", data, err)
	}
	return resp.StatusCode, nil
}
