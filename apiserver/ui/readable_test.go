package ui_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/apiserver/ui"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage"
)

// TestMemberPageReadsForPeople (issue 40 item 14): a member's page names
// rooms and speakers as people know them, says when things happened in
// words (the exact time kept in the datetime attribute and the tooltip),
// and titles conversations by their room and first words, not by ids.
func TestMemberPageReadsForPeople(t *testing.T) {
	tok := linkToken("alice-readable")
	mem := &members{tokens: map[string]string{tok: alice}, rooms: map[string][]string{alice: {roomA}},
		names: map[string]string{roomA: "Book club"}}
	s := newSiteWith(t, func(*storage.DB) ui.Options { return ui.Options{APIKey: testKey, Members: mem} })
	m := s.remember(core.MemoryInput{Text: "The next book is Dune", RoomID: roomA, Entity: roomA, UserID: alice, Source: core.SourceChat})
	conv := core.NewConversationID()
	s.speakerTurn(conv, roomA, alice, "Alice Liddell", "user", 0, "What should we read after Dune?", time.Now().Add(-3*24*time.Hour))
	s.speakerTurn(conv, roomA, "", "", "assistant", 1, "Perhaps Foundation.", time.Now().Add(-3*24*time.Hour))

	b := s.browser()
	if p := b.post("/ui/login/"+tok, nil); p.status != http.StatusSeeOther {
		t.Fatalf("member link: %d", p.status)
	}
	isoTime := regexp.MustCompile(`<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ" title="[^"]+">[^<]*(ago|just now)</time>`)

	list := want2(t, b.get("/ui/memories"), http.StatusOK, m.Text, "the room Book club")
	if strings.Contains(list, roomA) {
		t.Errorf("the list names the room by id:\n%.3000s", list)
	}
	if !isoTime.MatchString(list) {
		t.Errorf("the list's times are not in words with the exact time kept:\n%.3000s", list)
	}
	one := want2(t, b.get("/ui/memories/"+m.ID), http.StatusOK, "Book club")
	if strings.Contains(one, roomA) { // the matrix.to link holds it escaped, as its target only
		t.Errorf("the memory names its room by id:\n%.3000s", one)
	}
	if !isoTime.MatchString(one) {
		t.Errorf("the memory's time is not in words:\n%.3000s", one)
	}

	convs := want2(t, b.get("/ui/conversations"), http.StatusOK, "Book club", "What should we read after Dune?")
	if strings.Contains(convs, ">"+conv+"<") || strings.Contains(convs, roomA) {
		t.Errorf("the conversations are titled by ids:\n%.3000s", convs)
	}
	if !strings.Contains(convs, "3 days ago") {
		t.Errorf("the conversation's time is not in words:\n%.3000s", convs)
	}
	turns := want2(t, b.get("/ui/conversations/"+conv), http.StatusOK, "Book club", "Alice Liddell", "Ada", "3 days ago")
	if strings.Contains(turns, "<code>"+conv+"</code>") || strings.Contains(turns, ">user ·") || strings.Contains(turns, ">assistant ·") {
		t.Errorf("the conversation shows ids or roles instead of names:\n%.3000s", turns)
	}
}

// TestSpentLinkSaysSoOnGet (issue 40 item 14): opening a link that was
// used already shows no button that cannot work; it says the link is spent
// and how to get a new one. An outstanding link still shows its button.
func TestSpentLinkSaysSoOnGet(t *testing.T) {
	tok := linkToken("spent")
	s := newSite(t, ui.Options{APIKey: testKey, Members: &members{tokens: map[string]string{tok: alice}}})
	b := s.browser()
	want(t, b.get("/ui/login/"+tok), http.StatusOK, `action="/ui/login/`+tok+`"`)
	if p := b.post("/ui/login/"+tok, nil); p.status != http.StatusSeeOther {
		t.Fatalf("member link: %d", p.status)
	}
	spent := s.browser().get("/ui/login/" + tok)
	want(t, spent, http.StatusGone, "used already", "<code>!ada web</code>")
	if strings.Contains(spent.body, "<form") || strings.Contains(spent.body, "<nav") {
		t.Errorf("a spent link's page shows a form or the navigation:\n%.2000s", spent.body)
	}
}

// speakerTurn stores one turn of a room's conversation as the bridge does,
// with the speaker's display name.
func (s *site) speakerTurn(conv, room, user, speaker, role string, idx int, text string, at time.Time) {
	s.t.Helper()
	d := core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text),
		Meta: core.Metadata{Type: core.DocTurn, Timestamp: at, Source: core.SourceChat, Scope: core.ScopeGlobal,
			ConversationID: conv, Role: role, TurnIndex: &idx, RoomID: room, UserID: user, Speaker: speaker}}
	if err := s.db.Put(context.Background(), d); err != nil {
		s.t.Fatal(err)
	}
}

// TestPageNamesOnlyTheMembersRooms: a member sees what they told in a room
// they have left, but the page does not name that room for them (its name,
// or its members' names for a room without one, are the room's own): it
// names only the rooms they are in now.
func TestPageNamesOnlyTheMembersRooms(t *testing.T) {
	tok := linkToken("alice-left-a-room")
	mem := &members{tokens: map[string]string{tok: alice}, rooms: map[string][]string{alice: {roomA}},
		names: map[string]string{roomA: "Book club", roomB: "Layoffs planning"}}
	s := newSiteWith(t, func(*storage.DB) ui.Options { return ui.Options{APIKey: testKey, Members: mem} })
	told := s.remember(core.MemoryInput{Text: "Alice prefers tea", RoomID: roomB, Entity: roomB, UserID: alice, Source: core.SourceChat})
	b := s.browser()
	if p := b.post("/ui/login/"+tok, nil); p.status != http.StatusSeeOther {
		t.Fatalf("member link: %d", p.status)
	}
	for _, path := range []string{"/ui/memories", "/ui/memories/" + told.ID} {
		if page := want2(t, b.get(path), http.StatusOK, told.Text); strings.Contains(page, "Layoffs planning") {
			t.Errorf("%s names a room alice is not in:\n%.3000s", path, page)
		}
	}
}
