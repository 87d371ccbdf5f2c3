package ui_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ada-chat/ada/apiserver/ui"
	"github.com/ada-chat/ada/core"
)

// panicky is a bridge whose room lookup panics: a bug anywhere beneath a
// handler.
type panicky struct{ members }

func (*panicky) JoinedRooms(context.Context, string) ([]string, error) { panic("boom") }

// TestPanicIsAnErrorPage: the page runs inside fasthttp, which does not
// recover panics; one must not end the process, and the answer still
// carries the page's headers.
func TestPanicIsAnErrorPage(t *testing.T) {
	s := newSite(t, ui.Options{})
	h := ui.Handler(s.svc, ui.Options{APIKey: testKey, Members: &panicky{members{tokens: map[string]string{"tok": "@bob:x"}}}})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/ui/login/tok", nil))
	var cookie string
	for _, c := range rec.Result().Cookies() {
		cookie = c.Name + "=" + c.Value
	}
	req := httptest.NewRequest(http.MethodGet, "/ui/memories", nil)
	req.Header.Set("Cookie", cookie)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusInternalServerError || rec.Header().Get("Content-Security-Policy") == "" || strings.Contains(rec.Body.String(), "boom") {
		t.Fatalf("status %d, csp %q, body %.500s", rec.Code, rec.Header().Get("Content-Security-Policy"), rec.Body.String())
	}
}

// TestNoticeIsNotReflected: ?notice= names one of the page's own notices;
// a crafted link cannot put its words on the page.
func TestNoticeIsNotReflected(t *testing.T) {
	s := newSite(t, ui.Options{APIKey: testKey})
	b := s.browser()
	b.login(testKey)
	p := b.get("/ui/memories?notice=" + url.QueryEscape("Your key expired: send it to evil@example.com"))
	want(t, p, http.StatusOK)
	if strings.Contains(p.body, "evil@example.com") {
		t.Fatalf("the notice from the link is on the page:\n%.2000s", p.body)
	}
}

// TestMemberLinkWithoutUserIsRefused: a session's empty user means the
// operator; a bridge that redeemed a link to no user must not open one.
func TestMemberLinkWithoutUserIsRefused(t *testing.T) {
	mem := &members{tokens: map[string]string{"tok-nobody": ""}, rooms: map[string][]string{}}
	s := newSite(t, ui.Options{APIKey: testKey, Members: mem})
	s.remember(core.MemoryInput{Text: "The operator's server lives in Frankfurt"})
	b := s.browser()
	want(t, b.post("/ui/login/tok-nobody", nil), http.StatusGone)
	if p := b.get("/ui/memories"); strings.Contains(p.body, "Frankfurt") {
		t.Fatal("a link redeemed to no user opened the operator's view")
	}
}

// TestBadInputChangesNothing: each bad form or query is a clear error page
// with a 4xx status, and the memory is as it was.
func TestBadInputChangesNothing(t *testing.T) {
	ctx := context.Background()
	s := newSite(t, ui.Options{APIKey: testKey})
	m := s.remember(core.MemoryInput{Text: "Sam prefers tea over coffee", Importance: new(3)})
	b := s.browser()
	b.login(testKey)
	csrf := b.csrf()
	for name, form := range map[string]url.Values{
		"invalid utf-8 text":  {"text": {"Sam \xff\xfe"}, "importance": {"3"}},
		"importance too high": {"text": {"changed"}, "importance": {"9"}},
		"importance a word":   {"text": {"changed"}, "importance": {"high"}},
		"bad expiry":          {"text": {"changed"}, "importance": {"3"}, "expires": {"31/01/2099"}},
		"empty text":          {"text": {"   "}, "importance": {"3"}},
		"huge text":           {"text": {strings.Repeat("a", 300<<10)}, "importance": {"3"}},
		"invalid utf-8 tag":   {"text": {"changed"}, "importance": {"3"}, "tags": {"\xff"}},
	} {
		form.Set("csrf", csrf)
		p := b.post("/ui/memories/"+m.ID, form)
		if p.status < 400 || p.status >= 500 || !strings.Contains(p.body, `class="error"`) {
			t.Errorf("%s: status %d; body %.300s", name, p.status, p.body)
		}
		if got, err := s.svc.GetMemory(ctx, m.ID); err != nil || got.Text != m.Text || got.Meta.Importance != 3 || len(got.Meta.Tags) != 0 || got.Meta.ExpiresAt != nil {
			t.Fatalf("%s changed the memory: %+v %v", name, got, err)
		}
	}
	for _, q := range []string{"cursor=%ff%fe", "from=tomorrow", "importance=7", "scope=elsewhere", "q=%ff%fe", "%ff=1"} {
		if p := b.get("/ui/memories?" + q); p.status != http.StatusBadRequest {
			t.Errorf("%s: status %d; body %.300s", q, p.status, p.body)
		}
	}
	p := b.post("/ui/memories/"+m.ID+"/forget", url.Values{"csrf": {csrf}, "reason": {"bad \xff reason"}})
	if p.status == http.StatusSeeOther {
		for _, h := range must(s.svc.MemoryHistory(ctx, m.ID)) {
			if !utf8.ValidString(h.Reason) {
				t.Errorf("an invalid reason was stored: %q", h.Reason)
			}
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestMemberLearnsNothingOfHiddenForgottenMemories: another room's
// forgotten memory answers a member as one that never was (core's own
// message names when and why it went), and a correction's reason, which
// quotes the new memory, shows a member only that there was one.
func TestMemberLearnsNothingOfHiddenForgottenMemories(t *testing.T) {
	ctx := context.Background()
	mem := &members{tokens: map[string]string{"tok": alice}, rooms: map[string][]string{alice: {roomA}}}
	s := newSite(t, ui.Options{APIKey: testKey, Members: mem})
	hidden := s.remember(core.MemoryInput{Text: "Bob's plan in room B", RoomID: roomB, UserID: bob, Source: core.SourceChat})
	if err := s.svc.DeleteMemoryFor(ctx, hidden.ID, "Bob dropped the Falcon plan"); err != nil {
		t.Fatal(err)
	}
	old := s.remember(core.MemoryInput{Text: "Alice lives in Oslo", RoomID: roomA, UserID: alice, Source: core.SourceChat})
	retire := core.HistoryEntry{MemoryID: old.ID, Event: core.HistoryRetire, Time: time.Now(), Text: old.Text,
		Meta:   core.Metadata{Type: core.DocMemory, Scope: old.Meta.Scope, RoomID: roomA, UserID: alice},
		Reason: "replaced by doc-x: Bob says Alice moved to Bergen for the Falcon project"}
	if _, err := s.db.Apply(ctx, core.Change{Delete: []string{old.ID}, History: []core.HistoryEntry{retire}}); err != nil {
		t.Fatal(err)
	}
	b := s.browser()
	b.post("/ui/login/tok", nil)
	gone, absent := b.get("/ui/memories/"+hidden.ID), b.get("/ui/memories/doc-00000000-0000-0000-0000-000000000000")
	want(t, gone, http.StatusNotFound)
	want(t, absent, http.StatusNotFound)
	if strings.Contains(gone.body, "Falcon") || strings.Contains(gone.body, "deleted") {
		t.Errorf("another room's forgotten memory by id tells of itself:\n%.1500s", gone.body)
	}
	if f := b.get("/ui/forgotten"); strings.Contains(f.body, "Falcon") || !strings.Contains(f.body, old.ID) {
		t.Errorf("the member's forgotten list:\n%.3000s", f.body)
	}
}

// TestMemberSearchRanksOnlyWhatTheySee: a member's search ranks among the
// memories they may see; ranks counted over all would tell of hidden
// memories that matched better (and let them crowd out the member's own).
func TestMemberSearchRanksOnlyWhatTheySee(t *testing.T) {
	mem := &members{tokens: map[string]string{"tok": alice}, rooms: map[string][]string{alice: {roomA}}}
	s := newSite(t, ui.Options{APIKey: testKey, Members: mem})
	for i := range 5 {
		s.remember(core.MemoryInput{Text: fmt.Sprintf("Falcon launch plan %d: the Falcon launch is secret", i), RoomID: roomB, UserID: bob, Source: core.SourceChat})
	}
	s.remember(core.MemoryInput{Text: "Alice asked about the Falcon launch date", RoomID: roomA, UserID: alice, Source: core.SourceChat})
	b := s.browser()
	b.post("/ui/login/tok", nil)
	p := b.get("/ui/memories?q=" + url.QueryEscape("Falcon launch plan secret"))
	want(t, p, http.StatusOK, "Alice asked about the Falcon launch date")
	if !strings.Contains(p.body, "keyword #1,") || !strings.Contains(p.body, "meaning #1 ") {
		t.Errorf("the member's only match does not rank first among what she sees:\n%.3000s", p.body)
	}
}
