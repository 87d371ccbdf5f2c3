package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// TestDocsInBrowser opens /docs of the real program in headless Chromium,
// waits for Swagger UI to render the operations from the embedded assets and
// /openapi.json, runs GET /v1/healthz with "Try it out" and "Execute", and
// reads the live response. Set ADA_DOCS_SCREENSHOT=file.png to keep a
// screenshot; on failure one is written to the temp directory.
func TestDocsInBrowser(t *testing.T) {
	browser := headlessChromium(t, 1280, 1400)
	p := startAda(t, "serve", testEnv(t, nil))

	ctx, cancel := context.WithTimeout(browser, 30*time.Second)
	defer cancel()

	// Every request the page makes, and every script exception.
	var mu sync.Mutex
	var requests, exceptions, failed, consoleErrors []string
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests = append(requests, e.Request.URL)
		case *network.EventLoadingFailed:
			failed = append(failed, string(e.RequestID)+": "+e.ErrorText)
		case *runtime.EventExceptionThrown:
			exceptions = append(exceptions, e.ExceptionDetails.Error())
		case *cdplog.EventEntryAdded:
			// Content Security Policy violations and failed loads land here.
			if e.Entry.Level == cdplog.LevelError {
				consoleErrors = append(consoleErrors, e.Entry.Text+" "+e.Entry.URL)
			}
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				for _, a := range e.Args {
					consoleErrors = append(consoleErrors, string(a.Value)+a.Description)
				}
			}
		}
	})

	var screenshot []byte
	defer func() {
		path := os.Getenv("ADA_DOCS_SCREENSHOT")
		if path == "" && t.Failed() {
			path = filepath.Join(os.TempDir(), "ada-docs-failure.png")
		}
		if path == "" {
			return
		}
		if screenshot == nil {
			sctx, scancel := context.WithTimeout(browser, 5*time.Second)
			_ = chromedp.Run(sctx, chromedp.CaptureScreenshot(&screenshot))
			scancel()
		}
		if len(screenshot) > 0 && os.WriteFile(path, screenshot, 0o644) == nil {
			t.Logf("screenshot of /docs: %s", path)
		}
	}()

	const health = "#operations-service-getHealth"
	const patch = "#operations-memory-patchMemory"
	var listing, status, body string
	var patchTryOut int
	err := chromedp.Run(ctx,
		network.Enable(),
		cdplog.Enable(),
		chromedp.Navigate(p.URL+"/docs"),
		// The operation list renders once the bundle ran and openapi.json loaded.
		chromedp.WaitVisible(health, chromedp.ByQuery),
		chromedp.WaitVisible("#operations-memory-createMemory", chromedp.ByQuery),
		chromedp.Text("#swagger-ui", &listing, chromedp.ByQuery),
		// Expand GET /v1/healthz, then "Try it out" and "Execute".
		chromedp.Click(health+" .opblock-summary-control", chromedp.ByQuery),
		chromedp.WaitVisible(health+" .try-out__btn", chromedp.ByQuery),
		chromedp.Click(health+" .try-out__btn", chromedp.ByQuery),
		chromedp.WaitVisible(health+" .execute", chromedp.ByQuery),
		chromedp.Click(health+" .execute", chromedp.ByQuery),
		chromedp.WaitVisible(health+" .live-responses-table tr.response .response-col_status", chromedp.ByQuery),
		chromedp.Text(health+" .live-responses-table tr.response .response-col_status", &status, chromedp.ByQuery),
		chromedp.Text(health+" .live-responses-table tr.response .response-col_description", &body, chromedp.ByQuery),
		chromedp.ScrollIntoView(health, chromedp.ByQuery),
		chromedp.CaptureScreenshot(&screenshot),
		// PATCH /v1/memory/{id} offers "Try it out" too (Swagger UI
		// leaves out the methods it is not told to submit).
		chromedp.Click(patch+" .opblock-summary-control", chromedp.ByQuery),
		chromedp.WaitVisible(patch+" .opblock-body", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("`+patch+` .try-out__btn").length`, &patchTryOut),
	)
	if err != nil {
		t.Fatalf("driving /docs in chromium: %v", err)
	}
	for _, want := range []string{"/v1/healthz", "/v1/memory", "/v1/chat/stream", "/v1/conversations/{conversation_id}"} {
		if !strings.Contains(listing, want) {
			t.Errorf("the operation list does not show %s", want)
		}
	}
	if patchTryOut != 1 {
		t.Errorf("PATCH /v1/memory/{id} shows %d \"Try it out\" buttons, want 1", patchTryOut)
	}
	if strings.TrimSpace(status) != "200" {
		t.Errorf("live response status = %q, want 200", status)
	}
	if !strings.Contains(body, `"ok": true`) || !strings.Contains(body, `"service": "ada"`) {
		t.Errorf("live response body does not show a healthy service:\n%s", body)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(exceptions) > 0 {
		t.Errorf("script exceptions on /docs: %v", exceptions)
	}
	if len(consoleErrors) > 0 {
		t.Errorf("console errors on /docs: %v", consoleErrors)
	}
	if len(failed) > 0 {
		t.Errorf("failed requests on /docs: %v", failed)
	}
	// Everything comes from the binary itself: no CDN, no outside validator.
	for _, u := range requests {
		if !strings.HasPrefix(u, p.URL+"/") && !strings.HasPrefix(u, "data:") {
			t.Errorf("/docs requested %s, which is not served by ada", u)
		}
	}
}
