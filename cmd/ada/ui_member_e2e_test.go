package main

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestMemoryPageMemberPath is the member's way in, end to end (issue 30):
// the real program (`ada up`) on a real homeserver, a member asks `!ada
// web` in an encrypted room, opens the link Ada sent by direct message in
// Chromium and sees that room's memory, not the memory of a room she is
// not in (listed nowhere, 404 by id); the link used a second time is
// refused.
func TestMemoryPageMemberPath(t *testing.T) {
	browser := headlessChromium(t, 1280, 1000)
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	addr := freeAddr(t)
	public := "http://" + addr
	const key = "member-path-key-16"
	p := startAda(t, "up", bridgeEnv(t, hs, acct, llm, map[string]string{
		"LISTEN_ADDR": addr, "PUBLIC_URL": public, "API_KEY": key,
	}))

	alice := bottest.NewMember(t, hs, "alice", true)
	bob := bottest.NewMember(t, hs, "bob", true)
	ours := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "alice's room", InitialState: bottest.EncryptedRoom(), Invite: []id.UserID{acct.UserID, bob.Client.UserID}})
	bob.Join(ours) // a shared room: the link goes by direct message
	theirs := bob.CreateRoom(&mautrix.ReqCreateRoom{Name: "bob's room", InitialState: bottest.EncryptedRoom(), Invite: []id.UserID{acct.UserID}})
	alice.Wait("Ada joins alice's room", bottest.MembershipOf(ours, acct.UserID, event.MembershipJoin))
	bob.Wait("Ada joins bob's room", bottest.MembershipOf(theirs, acct.UserID, event.MembershipJoin))
	command := func(m *bottest.Member, room id.RoomID, text string) string {
		t.Helper()
		asked := m.Say(room, text)
		return m.Wait("the reply to "+text, bottest.ReplyTo(acct.UserID, asked, event.MsgNotice)).Content.AsMessage().Body
	}
	if got := command(alice, ours, "!ada remember the cellar door sticks in winter"); !strings.Contains(got, "Remembered") {
		t.Fatalf("alice's room memory: %q", got)
	}
	if got := command(bob, theirs, "!ada remember the lighthouse key is under the blue pot"); !strings.Contains(got, "Remembered") {
		t.Fatalf("bob's room memory: %q", got)
	}
	var found struct {
		Items []struct{ ID, Text string }
	}
	if st := p.callWithKey(key, "GET", "/v1/memory?search=lighthouse+key+blue+pot&entity="+url.QueryEscape(theirs.String()), nil, &found); st != http.StatusOK || len(found.Items) == 0 ||
		!strings.Contains(found.Items[0].Text, "lighthouse") {
		t.Fatalf("bob's memory over the API: %d %+v", st, found)
	}
	bobsMemory := found.Items[0].ID

	if got := command(alice, ours, "!ada web"); strings.Contains(got, "/ui/login/") {
		t.Fatalf("the link was posted in the room: %q", got)
	}
	invite := alice.Wait("Ada's invitation to a direct chat", func(e *event.Event) bool {
		return e.Type == event.StateMember && e.GetStateKey() == alice.Client.UserID.String() && e.Sender == acct.UserID &&
			e.Content.AsMember().Membership == event.MembershipInvite && e.Content.AsMember().IsDirect
	})
	alice.Join(invite.RoomID)
	dm := alice.Wait("the link in the direct chat", bottest.MessageFrom(invite.RoomID, acct.UserID, event.MsgNotice))
	link := regexp.MustCompile(regexp.QuoteMeta(public+"/ui/login/") + `[A-Za-z0-9_-]+`).FindString(dm.Content.AsMessage().Body)
	if link == "" {
		t.Fatalf("no %s/ui/login/<token> link in the direct message: %q", public, dm.Content.AsMessage().Body)
	}

	// A homeserver's URL preview fetches the link first: that spends
	// nothing. Then the member clicks it in a chat client of another site
	// (Element Web), on whose navigation the browser withholds the
	// SameSite=Strict cookie; the link's button logs her in all the same.
	if st, _ := getWith(t, link, ""); st != http.StatusOK {
		t.Fatalf("the link fetched as a preview: %d", st)
	}
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!doctype html><a id="link" href="%s">your link</a>`, html.EscapeString(link))
	}))
	defer chat.Close()
	ctx, cancel := context.WithTimeout(browser, 60*time.Second)
	defer cancel()
	var list, other string
	err := chromedp.Run(ctx,
		chromedp.Navigate(strings.Replace(chat.URL, "127.0.0.1", "localhost", 1)),
		chromedp.Click("#link", chromedp.ByQuery),
		chromedp.Click(`form[action^="/ui/login/"] button`, chromedp.ByQuery),
		chromedp.WaitVisible(".memories", chromedp.ByQuery),
		chromedp.Text("main", &list, chromedp.ByQuery),
		chromedp.Navigate(public+"/ui/memories/"+bobsMemory),
		chromedp.WaitVisible("main", chromedp.ByQuery),
		chromedp.Text("main", &other, chromedp.ByQuery),
	)
	if err != nil {
		t.Fatalf("open the member link in chromium: %v\nlogs:\n%s", err, p.logs.String())
	}
	if !strings.Contains(list, "the cellar door sticks in winter") {
		t.Errorf("the member's page lacks her room's memory:\n%s", list)
	}
	// Issue 40 item 14: the room goes by its name, as the bridge knows it,
	// never by its id.
	if !strings.Contains(list, "alice's room") || strings.Contains(list, ours.String()) {
		t.Errorf("the member's list does not name her room by its name:\n%s", list)
	}
	if strings.Contains(list, "lighthouse") || strings.Contains(other, "lighthouse") {
		t.Errorf("the member sees the memory of a room she is not in:\nlist:\n%s\nby id:\n%s", list, other)
	}
	// The memory of the other room answers as a memory that does not exist.
	jar := browserCookies(t, ctx, public+"/ui/memories")
	if st, _ := getWith(t, public+"/ui/memories/"+bobsMemory, jar); st != http.StatusNotFound {
		t.Errorf("another room's memory by id: %d, want 404", st)
	}
	if st, body := postWith(t, link); st != http.StatusGone || strings.Contains(body, "cellar door") {
		t.Errorf("the link used a second time: %d, want 410 and no memories", st)
	}
	// Opened again, the spent link says so, with no button that cannot work.
	if st, body := getWith(t, link, ""); st != http.StatusGone || strings.Contains(body, "<form") || !strings.Contains(body, "used already") {
		t.Errorf("the spent link opened again: %d\n%.1500s", st, body)
	}
	if strings.Contains(p.logs.String(), strings.TrimPrefix(link, public+"/ui/login/")) {
		t.Error("the link's token is in the program's log")
	}
}

// browserCookies is the browser's Cookie header for url (the session
// cookie is HttpOnly: the page's script could not read it).
func browserCookies(t *testing.T, ctx context.Context, url string) string {
	t.Helper()
	var pairs []string
	err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		cookies, err := network.GetCookies().WithURLs([]string{url}).Do(ctx)
		for _, c := range cookies {
			pairs = append(pairs, c.Name+"="+c.Value)
		}
		return err
	}))
	if err != nil || len(pairs) == 0 {
		t.Fatalf("the browser's cookies for %s: %v %v", url, pairs, err)
	}
	return strings.Join(pairs, "; ")
}

// getWith GETs url without following redirects, sending cookie if set.
func getWith(t *testing.T, url, cookie string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cookie != "" {
		req.Header.Set("Cookie", cookie)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// postWith POSTs an empty form to url without following redirects.
func postWith(t *testing.T, url string) (int, string) {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Post(url, "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestMemoryPageMemberLogout (issue 36): in the real program (`ada up`),
// where the page keeps the sessions and the bridge the members, `!ada web
// logout` and then `!ada forget me` each end the member's open page session
// at its next request.
func TestMemoryPageMemberLogout(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	addr := freeAddr(t)
	public := "http://" + addr
	startAda(t, "up", bridgeEnv(t, hs, acct, llm, map[string]string{
		"LISTEN_ADDR": addr, "PUBLIC_URL": public, "API_KEY": "member-logout-key-0123",
	}))
	r := newPageRoom(t, hs, acct.UserID, public, "logout")
	command, login := r.command, r.login
	ended := func(b *http.Client, after string) {
		t.Helper()
		if st, body := pageOf(t, b, public+"/ui/memories"); st != http.StatusUnauthorized || !strings.Contains(body, "was ended") {
			t.Errorf("the member's page after %s: %d\n%.1000s", after, st, body)
		}
	}

	b := login()
	if got := command("!ada web logout"); !strings.Contains(got, "sessions are ended") {
		t.Errorf("the reply to !ada web logout: %q", got)
	}
	ended(b, "!ada web logout")
	b = login()
	command("!ada forget me")
	ended(b, "!ada forget me")
}

// pageRoom is a room of three (alice, bob and Ada) in which alice asks
// for memory page links.
type pageRoom struct {
	t      *testing.T
	ada    id.UserID
	alice  *bottest.Member
	room   id.RoomID
	dm     id.RoomID
	public string
	seen   map[string]bool
}

func newPageRoom(t *testing.T, hs *bottest.Homeserver, ada id.UserID, public, name string) *pageRoom {
	t.Helper()
	alice := bottest.NewMember(t, hs, "alice", true) // the direct chat with the link is encrypted
	bob := bottest.NewMember(t, hs, "bob", false)
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: name, Invite: []id.UserID{ada, bob.Client.UserID}})
	bob.Join(room)
	alice.Wait("Ada joins", bottest.MembershipOf(room, ada, event.MembershipJoin))
	return &pageRoom{t: t, ada: ada, alice: alice, room: room, public: public, seen: map[string]bool{}}
}

// command is alice's command in the room, and Ada's reply.
func (r *pageRoom) command(text string) string {
	r.t.Helper()
	asked := r.alice.Say(r.room, text)
	return r.alice.Wait("the reply to "+text, bottest.ReplyTo(r.ada, asked, event.MsgNotice)).Content.AsMessage().Body
}

// login asks for a link, opens it with a fresh browser and returns the
// browser, signed in.
func (r *pageRoom) login() *http.Client {
	t := r.t
	t.Helper()
	link := r.link()
	jar, _ := cookiejar.New(nil)
	b := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := b.Post(link, "application/x-www-form-urlencoded", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if st, body := pageOf(t, b, r.public+"/ui/memories"); st != http.StatusOK || !strings.Contains(body, "Signed in as "+r.alice.Client.UserID.String()) {
		t.Fatalf("the member's page after the link: %d\n%.1000s", st, body)
	}
	return b
}

// link asks for a link with `!ada web` and returns the new one Ada sends
// alice by direct message (accepting the direct chat the first time).
func (r *pageRoom) link() string {
	t := r.t
	t.Helper()
	r.command("!ada web")
	if r.dm == "" {
		invite := r.alice.Wait("Ada's invitation to a direct chat", func(e *event.Event) bool {
			return e.Type == event.StateMember && e.GetStateKey() == r.alice.Client.UserID.String() && e.Sender == r.ada &&
				e.Content.AsMember().Membership == event.MembershipInvite
		})
		r.dm = invite.RoomID
		r.alice.Join(r.dm)
	}
	linkRE := regexp.MustCompile(regexp.QuoteMeta(r.public+"/ui/login/") + `[A-Za-z0-9_-]{43}`)
	msg := r.alice.Wait("a new link in the direct chat", func(e *event.Event) bool {
		return bottest.MessageFrom(r.dm, r.ada, event.MsgNotice)(e) && !r.seen[linkRE.FindString(e.Content.AsMessage().Body)]
	})
	link := linkRE.FindString(msg.Content.AsMessage().Body)
	if link == "" {
		t.Fatalf("no link in the direct message: %q", msg.Content.AsMessage().Body)
	}
	r.seen[link] = true
	return link
}

// pageOf GETs url with the browser b (its cookies, no redirects followed).
func pageOf(t *testing.T, b *http.Client, url string) (int, string) {
	t.Helper()
	resp, err := b.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}
