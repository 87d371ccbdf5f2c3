package main

import (
	"context"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
)

// chromiumPath is Debian's chromium (make apt-deps installs it).
const chromiumPath = "/usr/bin/chromium"

// headlessChromium starts a headless Chromium for a browser test and
// returns its context, closed when the test ends; extra adds flags (such
// as a host resolver rule). Without chromium the test is skipped locally
// and fails in CI.
func headlessChromium(t *testing.T, width, height int, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium is not installed at %s (make apt-deps installs it)", chromiumPath)
		}
		t.Skipf("chromium is not installed at %s: run make apt-deps (or apt-get install chromium)", chromiumPath)
	}
	// Not t.TempDir: Chromium's helpers may still write to their profile a
	// moment after the browser is gone, which fails TempDir's cleanup.
	profile, err := os.MkdirTemp("", "ada-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(width, height),
	}, extra...)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
		_ = os.RemoveAll(profile) // best effort, for the same reason
	})
	return browser
}

// keyLogin opens the memory page at url in the browser and submits the
// operator's key in its login form; the caller waits for what follows
// (the page, or the error a login over plain http gets).
func keyLogin(url, key string) chromedp.Tasks {
	return chromedp.Tasks{
		chromedp.Navigate(url),
		chromedp.WaitVisible("#key", chromedp.ByID),
		chromedp.SendKeys("#key", key, chromedp.ByID),
		chromedp.Submit("#key", chromedp.ByID),
	}
}
