package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ada-chat/ada/core/llm/llmtest"
)

// BenchmarkLoadStreamsAndWrites holds ADA_LOAD_STREAMS (default 500) chat
// streams open at all times and writes 50 memories a second, for
// ADA_LOAD_SECONDS (default 60), against the scripted model answering at a
// steady pace. It prints errors, throughput, peak RSS, and goroutines and
// open files before and after, so a leak shows as a difference. Run it with
// `make bench` (-benchtime 1x).
func BenchmarkLoadStreamsAndWrites(b *testing.B) {
	streams, seconds := envInt("ADA_LOAD_STREAMS", 500), envInt("ADA_LOAD_SECONDS", 60)
	llm := llmtest.New(b)
	// About a second per answer, like a fast local model, so the streams
	// overlap instead of finishing at once.
	llm.Default(llmtest.Reply{Tokens: strings.Fields("Sure , here is a short and steady answer for you ."), ChunkDelay: 80 * time.Millisecond})
	env := testEnv(b, map[string]string{"LLM_BASE_URL": llm.URL(), "LLM_MODEL": llmtest.ModelName, "LOG_LEVEL": "ERROR"})
	ada := startAda(b, "serve", env)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams + 64}, Timeout: 2 * time.Minute}

	runtime.GC()
	goBefore, fdBefore := runtime.NumGoroutine(), openFiles()
	var rssPeak atomic.Int64
	stopSampling := sampleRSS(&rssPeak)

	var (
		chats, writes, errs atomic.Int64
		firstErr            sync.Once
		errText             string
	)
	fail := func(err error) {
		errs.Add(1)
		firstErr.Do(func() { errText = err.Error() })
	}
	end := time.Now().Add(time.Duration(seconds) * time.Second)
	var wg sync.WaitGroup
	for i := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; time.Now().Before(end); n++ {
				if err := loadStream(client, ada.URL, fmt.Sprintf("stream %d question %d", i, n)); err != nil {
					fail(err)
					continue
				}
				chats.Add(1)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		// 50 writes a second, on a fixed schedule: a late slot is made up
		// at once rather than skipped, as a ticker would.
		var inner sync.WaitGroup
		start := time.Now()
		for n := 0; time.Now().Before(end); n++ {
			time.Sleep(time.Until(start.Add(time.Duration(n) * 20 * time.Millisecond)))
			inner.Add(1)
			go func() {
				defer inner.Done()
				if err := loadWrite(client, ada.URL, n); err != nil {
					fail(err)
					return
				}
				writes.Add(1)
			}()
		}
		inner.Wait()
	}()
	wg.Wait()
	stopSampling()

	// Idle again: the clients' kept-alive connections are closed, and
	// background work (summaries, memory extraction) finishes. fasthttp
	// keeps idle workers for 10 s (MaxIdleWorkerDuration) before they
	// exit, so the count is read once it settles, within 30 s.
	client.CloseIdleConnections()
	goAfter, fdAfter := 0, 0
	for settle := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		runtime.GC()
		goAfter, fdAfter = runtime.NumGoroutine(), openFiles()
		if goAfter <= goBefore+20 && fdAfter <= fdBefore+20 || time.Now().After(settle) {
			break
		}
	}

	fmt.Printf("\nLoad: %d concurrent streams + 50 memory writes/s for %d s (scripted model, ~1 s per answer, GOMAXPROCS=%d)\n",
		streams, seconds, runtime.GOMAXPROCS(0))
	fmt.Printf("%-40s %d\n", "chats completed", chats.Load())
	fmt.Printf("%-40s %d\n", "memories written", writes.Load())
	fmt.Printf("%-40s %d %s\n", "errors", errs.Load(), errText)
	fmt.Printf("%-40s %.0f MiB (test process: Ada, clients and fake LLM)\n", "peak RSS", float64(rssPeak.Load())/(1<<20))
	fmt.Printf("%-40s %d → %d\n", "goroutines before → after", goBefore, goAfter)
	fmt.Printf("%-40s %d → %d\n", "open files before → after", fdBefore, fdAfter)
	if errs.Load() > 0 {
		b.Errorf("%d errors under load; first: %s", errs.Load(), errText)
	}
	// A few goroutines may come and go (timers, pooled LLM connections); a
	// leak scales with the thousands of requests made.
	if goAfter > goBefore+50 || fdAfter > fdBefore+50 {
		b.Errorf("goroutines %d → %d, open files %d → %d: something outlives its request", goBefore, goAfter, fdBefore, fdAfter)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// loadStream runs one chat stream to its done event.
func loadStream(c *http.Client, url, prompt string) error {
	body, _ := json.Marshal(map[string]any{"prompt": prompt})
	resp, err := c.Post(url+"/v1/chat/stream", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("stream: status %d", resp.StatusCode)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct{ Type, Error string }
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			return fmt.Errorf("stream: bad event %q", data)
		}
		switch ev.Type {
		case "done":
			return nil
		case "error":
			return fmt.Errorf("stream: error event %q", ev.Error)
		}
	}
	return fmt.Errorf("stream ended without done: %v", sc.Err())
}

func loadWrite(c *http.Client, url string, n int) error {
	body, _ := json.Marshal(map[string]any{"text": fmt.Sprintf("load test fact number %d", n), "importance": 2})
	resp, err := c.Post(url+"/v1/memory", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != 201 && resp.StatusCode != 200 {
		return fmt.Errorf("memory write: status %d", resp.StatusCode)
	}
	return nil
}

// openFiles counts this process's open file descriptors.
func openFiles() int {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

// sampleRSS records the peak resident set size until the returned stop.
func sampleRSS(peak *atomic.Int64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			if rss := residentBytes(); rss > peak.Load() {
				peak.Store(rss)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

func residentBytes() int64 { return procStatusBytes(os.Getpid(), "VmRSS:") }

// procStatusBytes is a size field of /proc/<pid>/status (VmRSS:, VmHWM:).
func procStatusBytes(pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
