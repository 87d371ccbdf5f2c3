package bot

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"maunium.net/go/mautrix/event"
)

// Ada's name and keywords wake her only in what a member wrote to the room
// in their own words (issue 27): not inside code, quotes of others, links,
// URLs or e-mail addresses. The hyphenated and hashed words ("ada-lovelace",
// "#ada-dev") are left out by wholeWord's boundaries.

// prose is the member's own text in a message: the HTML formatted_body where
// there is one, else the plain body read as Markdown, without code, quotes,
// links, URLs and e-mail addresses.
func prose(c *event.MessageEventContent) string {
	text := ""
	if c.Format == event.FormatHTML && strings.TrimSpace(c.FormattedBody) != "" {
		text = htmlProse(c.FormattedBody)
	} else {
		text = markdownProse(c.Body)
	}
	return addressLike.ReplaceAllString(text, " ")
}

// addressLike matches URLs (with a scheme or www.) and e-mail addresses.
var addressLike = regexp.MustCompile(`(?i)(?:\b[a-z][a-z0-9+.\-]*://|\bwww\.)\S+|[\p{L}\p{N}._%+\-]+@[\p{L}\p{N}\-]+(?:\.[\p{L}\p{N}\-]+)+`)

// notProse are the HTML elements whose text is not the sender's prose:
// code, quotes (and the reply fallback, a quote), and links.
var notProse = map[atom.Atom]bool{atom.Code: true, atom.Pre: true, atom.Blockquote: true, atom.A: true}

// inline are the HTML elements that do not separate words.
var inline = map[atom.Atom]bool{atom.Span: true, atom.Strong: true, atom.Em: true, atom.B: true, atom.I: true,
	atom.U: true, atom.S: true, atom.Del: true, atom.Strike: true, atom.Font: true, atom.Sub: true, atom.Sup: true}

// htmlProse is the text of formatted, leaving out notProse elements; block
// elements and line breaks separate words.
func htmlProse(formatted string) string {
	root, err := html.Parse(strings.NewReader(formatted))
	if err != nil {
		return ""
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
			return
		case n.Type == html.ElementNode && (notProse[n.DataAtom] || n.Data == "mx-reply"):
			b.WriteString(" ")
			return
		}
		for child := n.FirstChild; child != nil; child = child.NextSibling {
			walk(child)
		}
		if n.Type == html.ElementNode && !inline[n.DataAtom] {
			b.WriteString("\n") // a block, a line break, or anything unknown
		}
	}
	walk(root)
	return b.String()
}

var (
	mdFence      = regexp.MustCompile("^\\s{0,3}(```|~~~)")
	mdInlineCode = regexp.MustCompile("``[^`]*``|`[^`]*`")
	mdLink       = regexp.MustCompile(`!?\[[^\]]*\]\([^)]*\)|<[a-z][a-z0-9+.\-]*:[^>\s]*>`)
)

// markdownProse is the plain body without fenced code blocks, quoted lines
// ("> ..."), inline code and links.
func markdownProse(body string) string {
	var out []string
	fence := ""
	for _, line := range strings.Split(body, "\n") {
		if m := mdFence.FindStringSubmatch(line); m != nil {
			switch {
			case fence == "":
				fence = m[1]
			case fence == m[1]:
				fence = ""
			}
			continue
		}
		if fence != "" || strings.HasPrefix(strings.TrimLeft(line, " \t"), ">") {
			continue
		}
		out = append(out, line)
	}
	text := strings.Join(out, "\n")
	text = mdInlineCode.ReplaceAllString(text, " ")
	return mdLink.ReplaceAllString(text, " ")
}
