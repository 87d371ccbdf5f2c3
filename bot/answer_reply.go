package bot

import (
	"encoding/json"
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
// breaks where possible, else at spaces, else between runes. A part that ends inside a ``` code block closes it, and the next
// part reopens it with the same fence line, so each renders on its own.
func splitMarkdown(text string, max int) []string {
	text = strings.TrimSpace(text)
	if len(text) <= max {
		return []string{text}
	}
	var parts []string
	var cur strings.Builder
	fence := "" // the opening line of the code block we are in, if any
	flush := func() {
		s := strings.TrimRight(cur.String(), "\n")
		if fence != "" {
			s += "\n```"
		}
		if strings.TrimSpace(s) != "" {
			parts = append(parts, s)
		}
		cur.Reset()
		if fence != "" {
			cur.WriteString(fence + "\n")
		}
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		for _, piece := range cutLine(line, max-len(fence)-8) {
			if cur.Len()+len(piece) > max-4 && cur.Len() > len(fence)+1 {
				flush()
			}
			cur.WriteString(piece)
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") {
			if fence == "" {
				fence = t
			} else {
				fence = ""
			}
		}
	}
	fence = "" // the text's own closing fence (if any) is already in cur
	flush()
	return parts
}

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
