package main

import (
	"context"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// uiScreenshots writes the memory list at phone and desktop width into
// docs/ (README.md and docs/room-admins.md show them): go test ./cmd/ada -run TestMemoryPageInBrowser -args -screenshots
var uiScreenshots = flag.Bool("screenshots", false, "write docs/ui-memories-{phone,desktop}.png from TestMemoryPageInBrowser")

// TestMemoryPageInBrowser drives the memory page of the real program in
// headless Chromium on the operator's path: log in with the key, find a
// memory made over the API by searching, raise its importance, forget it;
// the API then agrees. A memory holding markup shows as text and opens no
// JavaScript dialog.
func TestMemoryPageInBrowser(t *testing.T) {
	browser := headlessChromium(t, 1280, 1000)
	const key = "browser-test-key"
	p := startAda(t, "serve", testEnv(t, map[string]string{"API_KEY": key}))
	remember := func(text string, importance int) string {
		var m struct{ ID string }
		if st := p.callWithKey(key, "POST", "/v1/memory", map[string]any{"text": text, "importance": importance}, &m); st != http.StatusCreated {
			t.Fatalf("POST /v1/memory: %d", st)
		}
		return m.ID
	}
	const xss = `<img src=x onerror=alert(1)>`
	remember(xss, 3)
	for _, seed := range []struct {
		text string
		imp  int
	}{
		{"The team stand-up moved to 9:30 on weekdays", 3},
		{"Priya is allergic to peanuts", 5},
		{"The staging server is called bramble", 2},
		{"Marco prefers replies in Italian", 4},
	} {
		remember(seed.text, seed.imp)
	}
	target := remember("Rosalind keeps the spare bicycle in the garage", 2)

	ctx, cancel := context.WithTimeout(browser, 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	var dialogs []string
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			mu.Lock()
			dialogs = append(dialogs, e.Message)
			mu.Unlock()
			go func() { _ = chromedp.Run(ctx, page.HandleJavaScriptDialog(false)) }()
		}
	})

	var list, found, after string
	err := chromedp.Run(ctx,
		page.Enable(),
		keyLogin(p.URL+"/ui/", key),
		chromedp.WaitVisible("#q", chromedp.ByID),
		chromedp.Text("main", &list, chromedp.ByQuery),
		chromedp.SendKeys("#q", "spare bicycle garage", chromedp.ByID),
		chromedp.Submit("#q", chromedp.ByID),
		chromedp.WaitVisible(`a[href="/ui/memories/`+target+`"]`, chromedp.ByQuery),
		chromedp.Text(".memories", &found, chromedp.ByQuery),
		chromedp.Click(`a[href="/ui/memories/`+target+`"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#importance", chromedp.ByID),
		chromedp.SetValue("#importance", "5", chromedp.ByID),
		chromedp.Submit("#importance", chromedp.ByID),
		chromedp.WaitVisible(`//p[contains(@class, "notice") and contains(., "Saved.")]`, chromedp.BySearch),
	)
	if err != nil {
		t.Fatalf("log in, search and edit in chromium: %v\nlogs:\n%s", err, p.logs.String())
	}
	if !strings.Contains(list, "6 memories, newest first") {
		t.Errorf("the list does not count the memories:\n%s", list)
	}
	if !strings.Contains(list, xss) {
		t.Errorf("the list does not show the markup as text:\n%s", list)
	}
	if !strings.Contains(found, "Rosalind keeps the spare bicycle") || !strings.Contains(found, "keyword #1") {
		t.Errorf("the search does not show the memory and why:\n%s", found)
	}
	var m struct{ Meta struct{ Importance int } }
	if st := p.callWithKey(key, "GET", "/v1/memory/"+target, nil, &m); st != http.StatusOK || m.Meta.Importance != 5 {
		t.Fatalf("after the edit the API says %d, importance %d", st, m.Meta.Importance)
	}

	err = chromedp.Run(ctx,
		chromedp.SendKeys("#reason", "a test asked", chromedp.ByID),
		chromedp.Submit("#reason", chromedp.ByID),
		chromedp.WaitVisible(`//p[contains(@class, "notice") and contains(., "Forgotten.")]`, chromedp.BySearch),
		chromedp.Navigate(p.URL+"/ui/forgotten"),
		chromedp.Text("main", &after, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("forget in chromium: %v", err)
	}
	if st := p.callWithKey(key, "GET", "/v1/memory/"+target, nil, nil); st != http.StatusNotFound {
		t.Fatalf("after forgetting, GET /v1/memory/{id} = %d, want 404", st)
	}
	if !strings.Contains(after, "a test asked") {
		t.Errorf("the forgotten list lacks the reason:\n%s", after)
	}
	if *uiScreenshots {
		screenshotList(t, ctx, p.URL)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(dialogs) > 0 {
		t.Errorf("the page opened JavaScript dialogs: %q", dialogs)
	}
}

// screenshotList captures the memory list at phone and desktop width.
func screenshotList(t *testing.T, ctx context.Context, base string) {
	for _, shot := range []struct {
		name          string
		width, height int64
		scale         float64
		mobile        bool
	}{{"phone", 390, 844, 2, true}, {"desktop", 1280, 800, 1, false}} {
		var png []byte
		err := chromedp.Run(ctx,
			emulation.SetDeviceMetricsOverride(shot.width, shot.height, shot.scale, shot.mobile),
			chromedp.Navigate(base+"/ui/memories"),
			chromedp.WaitVisible("#q", chromedp.ByID),
			chromedp.CaptureScreenshot(&png),
		)
		if err != nil {
			t.Fatalf("screenshot %s: %v", shot.name, err)
		}
		path := filepath.Join("..", "..", "docs", "ui-memories-"+shot.name+".png")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
	}
}
