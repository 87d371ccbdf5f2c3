package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestNginxMemoryPageLogin (issue 41) reaches the memory page only
// through the real nginx with deploy/nginx/ada.conf, set up as an operator
// would (API_KEY, PUBLIC_URL naming the proxy, TRUSTED_PROXIES naming it):
// GET and POST /ui/login are answered by Ada, not redirected by nginx; the
// operator logs in with the key in Chromium; a member opens the link Ada
// sent her by direct message, through the proxy, in Chromium, and sees her
// room's memory; the link's token stays out of nginx's access log.
func TestNginxMemoryPageLogin(t *testing.T) {
	bin := findNginx(t)
	browser := headlessChromium(t, 1280, 1000)
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	proxyAddr := freeAddr(t)
	public := "http://" + proxyAddr
	const key = "nginx-login-key-0123"
	ada := startAda(t, "up", bridgeEnv(t, hs, acct, llm, map[string]string{
		"PUBLIC_URL": public, "API_KEY": key, "TRUSTED_PROXIES": "127.0.0.1,::1",
	}))
	px := startNginxAt(t, bin, proxyAddr, ada, nginxExtra{})

	// Ada answers the login page itself (nginx once sent a 301 to
	// /ui/login/, a 404).
	if st, body := getWith(t, px.URL+"/ui/login", ""); st != http.StatusOK || !strings.Contains(body, `id="key"`) {
		t.Fatalf("GET /ui/login through the proxy: %d %.300s", st, body)
	}
	if st, _ := postForm(t, px.URL+"/ui/login", url.Values{"key": {"not-the-key-at-all"}}); st == http.StatusMovedPermanently || st == http.StatusNotFound {
		t.Fatalf("POST /ui/login through the proxy: %d, want Ada's answer", st)
	}

	ctx, cancel := context.WithTimeout(browser, 90*time.Second)
	defer cancel()
	var operator string
	err := chromedp.Run(ctx,
		keyLogin(public+"/ui/", key),
		chromedp.WaitVisible("#q", chromedp.ByID),
		chromedp.Text("main", &operator, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("the operator's login through the proxy in chromium: %v\nnginx:\n%s\nada logs:\n%s", err, px.errorLog(), ada.logs.String())
	}
	if !strings.Contains(operator, "memor") {
		t.Errorf("the operator's page through the proxy:\n%s", operator)
	}

	// The member: a link by direct message, opened through the proxy.
	r := newPageRoom(t, hs, acct.UserID, public, "proxied") // a shared room: the link goes by direct message
	if got := r.command("!ada remember the cellar door sticks in winter"); !strings.Contains(got, "Remembered") {
		t.Fatalf("the room's memory: %q", got)
	}
	link := r.link()
	var member string
	err = chromedp.Run(ctx,
		network.ClearBrowserCookies(), // a browser of her own
		chromedp.Navigate(link),
		chromedp.Click(`form[action^="/ui/login/"] button`, chromedp.ByQuery),
		chromedp.WaitVisible(".memories", chromedp.ByQuery),
		chromedp.Text("main", &member, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("the member's link through the proxy in chromium: %v\nnginx:\n%s\nada logs:\n%s", err, px.errorLog(), ada.logs.String())
	}
	if !strings.Contains(member, "the cellar door sticks in winter") {
		t.Errorf("the member's page through the proxy lacks her room's memory:\n%s", member)
	}
	token := strings.TrimPrefix(link, public+"/ui/login/")
	if log := readFile(px.dir + "/access.log"); !strings.Contains(log, "/ui/memories") || strings.Contains(log, token) {
		t.Errorf("nginx's access log should hold the page's requests but not the link's token:\n%s", log)
	}
}

// postForm POSTs form to url without following redirects.
func postForm(t *testing.T, u string, form url.Values) (int, http.Header) {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}
