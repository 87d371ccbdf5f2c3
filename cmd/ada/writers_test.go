package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// memoryWriters are goroutines that add memories to an Ada as fast as it
// acknowledges them, each text its own, and keep the ids acknowledged (201).
type memoryWriters struct {
	mu    sync.Mutex
	acked []string
	err   error // the first failed write
	// grew is signalled after each acknowledged write.
	grew chan struct{}
	stop chan struct{}
	wg   sync.WaitGroup
}

func startMemoryWriters(url string, n int) *memoryWriters {
	w := &memoryWriters{grew: make(chan struct{}, 1), stop: make(chan struct{})}
	for i := range n {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			for j := 0; ; j++ {
				select {
				case <-w.stop:
					return
				default:
				}
				id, err := postMemory(url, fmt.Sprintf("writer %d remembers fact number %d", i, j))
				w.mu.Lock()
				if err != nil && w.err == nil {
					w.err = err
				}
				if err == nil {
					w.acked = append(w.acked, id)
				}
				w.mu.Unlock()
				if err != nil {
					return
				}
				select {
				case w.grew <- struct{}{}:
				default:
				}
			}
		}()
	}
	return w
}

// waitAcked returns once at least n writes were acknowledged, and fails the
// test when a writer failed or the writes stall.
func (w *memoryWriters) waitAcked(t testing.TB, n int) {
	t.Helper()
	timeout := time.NewTimer(60 * time.Second)
	defer timeout.Stop()
	for {
		w.mu.Lock()
		got, err := len(w.acked), w.err
		w.mu.Unlock()
		if err != nil {
			t.Fatalf("a writer failed after %d writes: %v", got, err)
		}
		if got >= n {
			return
		}
		select {
		case <-w.grew:
		case <-timeout.C:
			t.Fatalf("only %d of %d writes acknowledged in 60 s", got, n)
		}
	}
}

// acknowledged is a copy of the ids acknowledged so far.
func (w *memoryWriters) acknowledged() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.acked)
}

// halt stops the writers and returns the first failed write, if any.
func (w *memoryWriters) halt() error {
	close(w.stop)
	w.wg.Wait()
	return w.err
}

// postMemory adds one memory and returns its id.
func postMemory(base, text string) (string, error) {
	body, _ := json.Marshal(map[string]any{"text": text, "importance": 3})
	resp, err := http.Post(base+"/v1/memory", "application/json", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var m struct {
		ID     string `json:"id"`
		Detail string `json:"detail"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusCreated || m.ID == "" {
		return "", fmt.Errorf("POST /v1/memory: %d %s", resp.StatusCode, m.Detail)
	}
	return m.ID, nil
}
