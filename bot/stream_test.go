package bot

import (
	"strings"
	"testing"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/core"
)

// TestEditOf: an edit carries the new text in m.new_content without the
// reply relation, keeps the asker mentioned there, pings nobody again, and
// keeps its fallback short for long texts (event size).
func TestEditOf(t *testing.T) {
	c := renderPart("some **bold** text")[0]
	e := editOf("$reply", c, "@alice:x")
	switch {
	case e.RelatesTo == nil || e.RelatesTo.Type != event.RelReplace || e.RelatesTo.EventID != "$reply":
		t.Errorf("relation %+v, want m.replace of $reply", e.RelatesTo)
	case e.NewContent == nil || e.NewContent.RelatesTo != nil || !strings.Contains(e.NewContent.FormattedBody, "<strong>bold</strong>"):
		t.Errorf("new content %+v, want the rendered text without relations", e.NewContent)
	case len(e.Mentions.UserIDs) != 0 || len(e.NewContent.Mentions.UserIDs) != 1:
		t.Errorf("mentions %+v / %+v, want none outside and the asker inside", e.Mentions, e.NewContent.Mentions)
	case e.Body != "* some **bold** text":
		t.Errorf("fallback %q", e.Body)
	}
	long := editOf("$reply", renderPart(strings.Repeat("word ", 1000))[0], "@alice:x")
	if len(long.Body) > 250 || long.FormattedBody != "" || len(long.NewContent.Body) < 4000 {
		t.Errorf("long edit: fallback %d bytes (html %d), new content %d", len(long.Body), len(long.FormattedBody), len(long.NewContent.Body))
	}
}

// TestStreamSnapshot: nothing is shown before a whole sentence; then the
// text so far, marked as unfinished, or with what Ada is doing in a pause.
func TestStreamSnapshot(t *testing.T) {
	// Issue 40 item 11: a colon, a semicolon or a line break is no
	// sentence end: "You asked:" alone is a fragment.
	for _, frag := range []string{"You asked:", "You asked:\n", "Steps;", "## Your question\n\n", "Here is a list:\n\n- one"} {
		s := &streamer{wake: make(chan struct{}, 1)}
		if err := s.emit(core.Event{Type: core.EventToken, Content: frag}); err != nil {
			t.Fatal(err)
		}
		if got := s.snapshot(); got != "" {
			t.Errorf("a fragment is posted: %q", got)
		}
	}
	s := &streamer{wake: make(chan struct{}, 1)}
	feed := func(ev core.Event) {
		if err := s.emit(ev); err != nil {
			t.Fatal(err)
		}
	}
	feed(core.Event{Type: core.EventToken, Content: "Version 3.14 is"})
	if got := s.snapshot(); got != "" {
		t.Errorf("before a sentence: %q", got)
	}
	feed(core.Event{Type: core.EventToken, Content: " out. It"})
	if got := s.snapshot(); got != "Version 3.14 is out. It"+streamingMark {
		t.Errorf("after a sentence: %q", got)
	}
	feed(core.Event{Type: core.EventSpecialistCall, Specialist: "web_search"})
	if got := s.snapshot(); !strings.HasSuffix(got, "_searching the web…_") {
		t.Errorf("in a pause: %q", got)
	}
	feed(core.Event{Type: core.EventToken, Content: " runs."})
	if got := s.snapshot(); strings.Contains(got, "searching") {
		t.Errorf("after the pause: %q", got)
	}
}
