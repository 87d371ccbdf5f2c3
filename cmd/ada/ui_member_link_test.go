package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ada-chat/ada/apiserver/ui"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
)

// oneLink is a bridge that issued one member link.
type oneLink struct {
	mu    sync.Mutex
	token string
}

func (o *oneLink) Redeem(_ context.Context, token string) (string, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if token == "" || token != o.token {
		return "", core.Errorf(core.KindNotFound, "no such link")
	}
	o.token = ""
	return "@alice:example.org", nil
}

func (*oneLink) JoinedRooms(context.Context, string) ([]string, error) { return nil, nil }

// TestMemoryPageMemberLinkFromAnotherSite opens a member link the way a
// member does from Element Web: by a click on a page of another site. The
// session cookie is SameSite=Strict, which a browser withholds on every
// request of a navigation another site started, redirects included; the
// link must still end on the member's list, not on the operator's key form.
// A GET of the link (a homeserver's URL preview) must not spend it.
func TestMemoryPageMemberLinkFromAnotherSite(t *testing.T) {
	browser := headlessChromium(t, 1000, 800)
	db, err := storage.Open(context.Background(), filepath.Join(t.TempDir(), "ada.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	svc := core.New(core.Deps{Store: db, Embedder: embed.Hash{}}, core.DefaultOptions())
	t.Cleanup(svc.Close)
	link := &oneLink{token: "tok-from-element"}
	ada := httptest.NewServer(ui.Handler(svc, ui.Options{APIKey: "k", Members: link}))
	t.Cleanup(ada.Close)
	// Ada answers on 127.0.0.1; the chat client is on localhost, another site.
	target := ada.URL + "/ui/login/tok-from-element"
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!doctype html><a id="go" href="%s">your link</a>`, target)
	}))
	t.Cleanup(chat.Close)

	preview, err := http.Get(target) // a URL preview fetches the link first
	if err != nil {
		t.Fatal(err)
	}
	preview.Body.Close()

	ctx, cancel := context.WithTimeout(browser, 30*time.Second)
	defer cancel()
	var main string
	err = chromedp.Run(ctx,
		chromedp.Navigate(strings.Replace(chat.URL, "127.0.0.1", "localhost", 1)),
		chromedp.Click("#go", chromedp.ByQuery),
		chromedp.WaitVisible("main", chromedp.ByQuery),
		chromedp.ActionFunc(func(ctx context.Context) error {
			var hasButton bool
			if err := chromedp.Evaluate(`!!document.querySelector('form[action^="/ui/login/"] button')`, &hasButton).Do(ctx); err != nil || !hasButton {
				return err
			}
			return chromedp.Click(`form[action^="/ui/login/"] button`, chromedp.ByQuery).Do(ctx)
		}),
		chromedp.WaitVisible("#count, .error, #key", chromedp.ByQuery),
		chromedp.Text("body", &main, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(main, "Signed in as @alice:example.org") || !strings.Contains(main, "memories, newest first") {
		t.Fatalf("the member link opened from another site ends on:\n%s", main)
	}
}
