package bot

import (
	"encoding/json"
	"strings"
	"testing"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// TestContinuationsRelate (issue 40 item 10): the later parts of a long
// answer in the main timeline refer to the question (m.reference), so they
// are not loose messages; only the first is a reply.
func TestContinuationsRelate(t *testing.T) {
	q := &event.Event{ID: "$q", RoomID: "!r:x", Sender: "@a:x", Content: event.Content{Parsed: &event.MessageEventContent{Body: "q"}}}
	parts := replyContents(strings.Repeat(strings.Repeat("word ", 20)+"\n\n", 400), q)
	if len(parts) < 2 {
		t.Fatalf("want a long answer in parts, got %d", len(parts))
	}
	if parts[0].RelatesTo.GetReplyTo() != "$q" {
		t.Errorf("the first part is no reply to the question: %+v", parts[0].RelatesTo)
	}
	for i, c := range parts[1:] {
		if c.RelatesTo == nil || c.RelatesTo.Type != event.RelReference || c.RelatesTo.EventID != "$q" || c.RelatesTo.GetReplyTo() != "" {
			t.Errorf("part %d relates as %+v, want a reference to the question", i+2, c.RelatesTo)
		}
	}
}

func TestSplitMarkdown(t *testing.T) {
	// Issue 40 item 10: a heading never ends a part; it goes with its
	// paragraph into the next.
	t.Run("a heading stays with its paragraph", func(t *testing.T) {
		text := strings.Repeat("a", 80) + "\n\n## Second section\n\n" + strings.Repeat("b", 80)
		parts := splitMarkdown(text, 110)
		for i, p := range parts {
			if last := p[strings.LastIndex(p, "\n")+1:]; strings.HasPrefix(last, "#") {
				t.Errorf("part %d ends with a heading: %q", i, p)
			}
		}
		if len(parts) != 2 || !strings.HasPrefix(parts[1], "## Second section") {
			t.Errorf("parts: %q", parts)
		}
	})
	t.Run("short text is one part", func(t *testing.T) {
		if got := splitMarkdown("  hello  ", 100); len(got) != 1 || got[0] != "hello" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("lines are kept whole and nothing is lost", func(t *testing.T) {
		var lines []string
		for i := 0; i < 200; i++ {
			lines = append(lines, strings.Repeat("x", 40))
		}
		text := strings.Join(lines, "\n")
		parts := splitMarkdown(text, 1000)
		if len(parts) < 8 {
			t.Fatalf("want several parts, got %d", len(parts))
		}
		for _, p := range parts {
			if len(p) > 1000 {
				t.Errorf("part of %d bytes over the limit", len(p))
			}
		}
		if got := strings.ReplaceAll(strings.Join(parts, "\n"), "\n", ""); got != strings.ReplaceAll(text, "\n", "") {
			t.Errorf("text changed by splitting")
		}
	})
	t.Run("one huge line is cut at spaces or runes", func(t *testing.T) {
		text := strings.Repeat("é", 3000) // 6000 bytes, no spaces
		parts := splitMarkdown(text, 1000)
		if strings.Join(parts, "") != text {
			t.Errorf("runes were broken or lost")
		}
		for _, p := range parts {
			if !strings.HasPrefix(p, "é") {
				t.Errorf("a part starts inside a rune")
			}
		}
	})
	t.Run("code blocks are closed and reopened", func(t *testing.T) {
		text := "intro\n```go\n" + strings.Repeat("fmt.Println(1)\n", 200) + "```\noutro"
		parts := splitMarkdown(text, 800)
		if len(parts) < 2 {
			t.Fatalf("want several parts")
		}
		for i, p := range parts {
			if strings.Count(p, "```")%2 != 0 {
				t.Errorf("part %d has an unbalanced fence:\n%s", i, p)
			}
		}
		if !strings.HasPrefix(parts[1], "```go\n") {
			t.Errorf("the second part should reopen the go block, starts %q", parts[1][:10])
		}
	})
	t.Run("a table's header is repeated", func(t *testing.T) {
		head := "| Day | Food |\n|-----|:----:|\n"
		text := "intro\n\n" + head + strings.Repeat("| Mon | soup |\n", 200) + "\noutro"
		parts := splitMarkdown(text, 800)
		if len(parts) < 2 {
			t.Fatalf("want several parts")
		}
		for i, p := range parts[1:] {
			if strings.Contains(p, "| Mon |") && !strings.HasPrefix(p, head) {
				t.Errorf("part %d holds rows without the table's header:\n%s", i+1, p[:40])
			}
		}
		if last := parts[len(parts)-1]; !strings.HasSuffix(last, "outro") {
			t.Errorf("the text after the table was lost: %q", last)
		}
	})
}

func TestReplyContents(t *testing.T) {
	asker := id.UserID("@alice:x")
	q := &event.Event{ID: "$q", Sender: asker, Content: event.Content{Parsed: &event.MessageEventContent{Body: "q"}}}
	t.Run("markdown, escaped html, mentions, reply", func(t *testing.T) {
		cs := replyContents("**hi** <img src=x onerror=alert(1)> [@bob](https://matrix.to/#/@bob:x)", q)
		if len(cs) != 1 {
			t.Fatalf("want 1 part, got %d", len(cs))
		}
		c := cs[0]
		if !strings.Contains(c.FormattedBody, "<strong>hi</strong>") || strings.Contains(c.FormattedBody, "<img") {
			t.Errorf("formatted body %q", c.FormattedBody)
		}
		if c.Mentions == nil || len(c.Mentions.UserIDs) != 1 || c.Mentions.UserIDs[0] != asker {
			t.Errorf("mentions %+v: only the asker, never a user named in the answer", c.Mentions)
		}
		if c.RelatesTo.GetReplyTo() != "$q" || c.MsgType != event.MsgText {
			t.Errorf("relation %+v, msgtype %s", c.RelatesTo, c.MsgType)
		}
	})
	t.Run("thread", func(t *testing.T) {
		inThread := &event.Event{ID: "$q2", Sender: asker, Content: event.Content{Parsed: &event.MessageEventContent{
			Body: "q", RelatesTo: (&event.RelatesTo{}).SetThread("$root", "$root")}}}
		cs := replyContents(strings.Repeat("word ", 6000), inThread)
		if len(cs) < 2 {
			t.Fatalf("want a split reply")
		}
		for i, c := range cs {
			if c.RelatesTo.GetThreadParent() != "$root" {
				t.Errorf("part %d left the thread", i)
			}
			if i > 0 && (len(c.Mentions.UserIDs) != 0 || !c.RelatesTo.IsFallingBack) {
				t.Errorf("later parts neither ping nor reply: %+v %+v", c.Mentions, c.RelatesTo)
			}
		}
		if cs[0].RelatesTo.GetReplyTo() != "$q2" || cs[0].RelatesTo.IsFallingBack {
			t.Errorf("first part must really reply to the question: %+v", cs[0].RelatesTo)
		}
	})
	t.Run("escaping-heavy text still fits an event", func(t *testing.T) {
		for _, c := range replyContents(strings.Repeat("<&>\"", 8000), q) {
			raw, _ := json.Marshal(c)
			if len(raw) > maxContentBytes {
				t.Errorf("content of %d bytes", len(raw))
			}
		}
	})
}

func TestFailureText(t *testing.T) {
	// Every kind gets a sentence; none leaks an internal error's text.
	for _, err := range []error{
		coreErr(0, "db password=hunter2"), coreErr(1, "prompt: too long"), coreErr(3, "store down"),
		coreErr(4, "ollama at http://h:1 returned 500"), coreErr(6, "no"), coreErr(7, "cancelled"),
	} {
		got := failureText(err)
		if got == "" || strings.Contains(got, "hunter2") || strings.Contains(got, "{") {
			t.Errorf("failureText(%v) = %q", err, got)
		}
	}
}
