package main

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tesseractChildren counts the tesseract processes this test process runs
// (the server runs in-process), read from /proc like ps would.
func tesseractChildren(t *testing.T) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	self, n := strconv.Itoa(os.Getpid()), 0
	for _, e := range entries {
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || !strings.Contains(s[:i], "(tesseract") {
			continue
		}
		if f := strings.Fields(s[i+1:]); len(f) > 1 && f[1] == self {
			n++
		}
	}
	return n
}

// A burst of uploads never runs more tesseract processes than
// OCR_CONCURRENCY; each upload is read or told clearly that OCR is busy.
func TestOCRUploadsShareBoundedTesseractProcesses(t *testing.T) {
	img, err := os.ReadFile("../../core/specialists/ocr/testdata/text.webp")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/usr/bin/tesseract"); err != nil {
		t.Fatalf("tesseract is needed (make deps): %v", err)
	}
	ada := startAda(t, "serve", testEnv(t, map[string]string{"OCR_CONCURRENCY": "1"}))
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "text.webp")
	_, _ = fw.Write(img)
	_ = mw.Close()

	var most atomic.Int64
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for {
			if n := int64(tesseractChildren(t)); n > most.Load() {
				most.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	const uploads = 6
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for range uploads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Post(ada.URL+"/v1/ocr/extract", mw.FormDataContentType(), bytes.NewReader(form.Bytes()))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var d detail
			if resp.StatusCode == 503 {
				_ = json.NewDecoder(resp.Body).Decode(&d)
				if !strings.Contains(d.Detail, "OCR_CONCURRENCY") || resp.Header.Get("Retry-After") == "" {
					t.Errorf("busy answer %q without the setting or Retry-After", d.Detail)
				}
			}
			mu.Lock()
			statuses[resp.StatusCode]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(stop)
	<-watched
	t.Logf("answers %v; most tesseract processes at once: %d", statuses, most.Load())
	if most.Load() > 1 {
		t.Errorf("%d tesseract processes ran at once with OCR_CONCURRENCY=1", most.Load())
	}
	if statuses[200] == 0 || statuses[200]+statuses[503] != uploads {
		t.Errorf("answers %v: want every upload read (200) or told OCR is busy (503)", statuses)
	}
}
