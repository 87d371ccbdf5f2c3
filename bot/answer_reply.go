package bot

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/format"
	"maunium.net/go/mautrix/id"
)

// Size limits of one reply event. A Matrix event may be at most 64 KiB as a
// whole; the content carries the text twice (body and HTML), and Megolm
// encryption grows it by a third (base64), so one part's content JSON is kept
// under maxContentBytes and its Markdown source under maxPartBytes.
const (
	maxPartBytes    = 12000
	maxContentBytes = 28000
)

// replyContents renders the model's answer as one or more m.text events:
// Markdown becomes HTML, raw HTML written by the model is escaped (never
// rendered), and m.mentions names only the asker, so links or names in the
// answer ping no one.
func replyContents(answer string, evt *event.Event) []*event.MessageEventContent {
	var out []*event.MessageEventContent
	for _, part := range splitMarkdown(answer, maxPartBytes) {
		out = append(out, renderPart(part)...)
	}
	for i, c := range out {
		relateTo(c, evt, i == 0)
		c.Mentions = &event.Mentions{}
		if i == 0 {
			c.Mentions.UserIDs = []id.UserID{evt.Sender}
		}
	}
	return out
}

// renderPart renders one part, halving it until its content fits: text full
// of characters that HTML escapes can grow several-fold.
func renderPart(part string) []*event.MessageEventContent {
	c := format.RenderMarkdown(part, true, false)
	c.MsgType = event.MsgText
	if raw, err := json.Marshal(&c); err == nil && len(raw) > maxContentBytes && len(part) > 1 {
		halves := splitMarkdown(part, len(part)/2)
		if len(halves) > 1 {
			var out []*event.MessageEventContent
			for _, h := range halves {
				out = append(out, renderPart(h)...)
			}
			return out
		}
	}
	return []*event.MessageEventContent{&c}
}

// splitMarkdown cuts text into parts of at most about max bytes, at line
// breaks where possible, else at spaces, else between runes. A part that
// ends inside a ``` code block closes it, and the next part reopens it with
// the same fence line; a part that starts inside a table repeats the
// table's header, so each part renders on its own.
// markdownHeading is an ATX heading line: "## Section".
var markdownHeading = regexp.MustCompile(`^\s{0,3}#{1,6}(\s|$)`)

func splitMarkdown(text string, max int) []string {
	text = strings.TrimSpace(text)
	if len(text) <= max {
		return []string{text}
	}
	var parts []string
	var cur strings.Builder
	fence := "" // the opening line of the code block we are in, if any
	table := "" // the header and delimiter rows of the table we are in, if any
	flush := func() {
		s := strings.TrimRight(cur.String(), "\n")
		// A heading never ends a part: it goes on with its paragraph
		// (issue 40 item 10).
		carry := ""
		if i := strings.LastIndex(s, "\n"); fence == "" && i >= 0 && markdownHeading.MatchString(s[i+1:]) && strings.TrimSpace(s[:i]) != "" {
			carry, s = s[i+1:]+"\n\n", strings.TrimRight(s[:i], "\n")
		}
		if fence != "" {
			s += "\n```"
		}
		if strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
		cur.Reset()
		if fence != "" {
			cur.WriteString(fence + "\n")
		} else {
			cur.WriteString(table)
		}
		cur.WriteString(carry)
	}
	prev := ""
	for _, line := range strings.SplitAfter(text, "\n") {
		t := strings.TrimSpace(line)
		if table != "" && !strings.Contains(t, "|") {
			table = "" // the table ended before this line
		}
		for _, piece := range cutLine(line, max-len(fence)-len(table)-8) {
			if cur.Len()+len(piece) > max-4 && cur.Len() > len(fence)+len(table)+1 {
				flush()
			}
			cur.WriteString(piece)
		}
		switch {
		case strings.HasPrefix(t, "```") && fence == "":
			fence, table = t, ""
		case strings.HasPrefix(t, "```"):
			fence = ""
		case fence == "" && table == "" && tableDelimiter.MatchString(t) && strings.Contains(prev, "|"):
			table = strings.TrimRight(prev, "\n") + "\n" + strings.TrimRight(line, "\n") + "\n"
		}
		prev = line
	}
	fence, table = "", "" // the text's own closing fence (if any) is already in cur
	flush()
	return parts
}

// tableDelimiter is a Markdown table's delimiter row: "|---|:--:|".
var tableDelimiter = regexp.MustCompile(`^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$`)

// cutLine splits one over-long line at spaces, else between runes.
func cutLine(line string, max int) []string {
	if max < 16 {
		max = 16
	}
	var out []string
	for len(line) > max {
		cut := strings.LastIndexByte(line[:max], ' ')
		if cut <= 0 {
			cut = max
			for cut > 0 && !utf8.RuneStart(line[cut]) {
				cut--
			}
		}
		out = append(out, line[:cut])
		line = line[cut:]
	}
	return append(out, line)
}
