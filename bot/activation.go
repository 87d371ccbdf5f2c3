package bot

import (
	"net/url"
	"regexp"
	"strings"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// trigger says why a message woke the bot; "" means it did not.
type trigger string

const (
	triggerNone        trigger = ""
	triggerMention     trigger = "mention"
	triggerDM          trigger = "dm"
	triggerDisplayName trigger = "display_name"
	triggerKeyword     trigger = "keyword"
)

// activation decides whether a message is addressed to the bot. Each path
// has its own switch (RESPOND_TO_*). Names and keywords match whole words,
// case-insensitively, so "Canada" never wakes a bot called Ada.
type activation struct {
	userID      id.UserID
	mentions    bool
	dms         bool
	displayName *regexp.Regexp // nil when off
	keywords    []*regexp.Regexp
}

func newActivation(o Options) *activation {
	a := &activation{userID: id.UserID(o.UserID), mentions: o.RespondToMentions, dms: o.RespondToDMs}
	if o.RespondToDisplayName && strings.TrimSpace(o.DisplayName) != "" {
		a.displayName = wholeWord(o.DisplayName)
	}
	if o.RespondToKeywords {
		for _, k := range o.Keywords {
			if strings.TrimSpace(k) != "" {
				a.keywords = append(a.keywords, wholeWord(k))
			}
		}
	}
	return a
}

// wholeWord matches phrase as whole words in any case; inner spaces match any
// run of white space. Go's regexp has no \b for Unicode letters, so the
// boundaries are spelled out as "start or a non-word rune". A word joined to
// another by a hyphen or a slash, or after # ("ada-lovelace", "#ada-dev",
// "docs/ada"), or followed by @ or by a dot and more ("ada@x", "ada.org"), is
// part of a name, not an address to the bot.
func wholeWord(phrase string) *regexp.Regexp {
	words := strings.Fields(phrase)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return regexp.MustCompile(`(?i)(?:^|[^\p{L}\p{N}_\-#/])` + strings.Join(words, `\s+`) +
		`(?:$|[^\p{L}\p{N}_\-/@.]|\.(?:$|[^\p{L}\p{N}_]))`)
}

// check returns the first matching trigger for a message. content must be a
// text message whose reply fallback was removed; isDM says whether the room
// is a direct chat (two members). The name and keywords count only in the
// member's own prose (prose.go).
func (a *activation) check(content *event.MessageEventContent, isDM bool) trigger {
	text := prose(content) // once: the mention, the name and the keywords all read it
	switch {
	case a.mentions && a.mentioned(content, text):
		return triggerMention
	case a.dms && isDM:
		return triggerDM
	case a.displayName == nil && len(a.keywords) == 0:
		return triggerNone
	}
	if a.displayName != nil && a.displayName.MatchString(text) {
		return triggerDisplayName
	}
	for _, k := range a.keywords {
		if k.MatchString(text) {
			return triggerKeyword
		}
	}
	return triggerNone
}

// pillHref finds link targets in formatted bodies.
var pillHref = regexp.MustCompile(`(?i)href\s*=\s*["']([^"']+)["']`)

// mentioned reports an intentional mention: m.mentions, a pill (a matrix.to
// or matrix: link to the bot in the HTML), or the full user id in the
// member's own text, prose (not in a quote or code).
func (a *activation) mentioned(c *event.MessageEventContent, prose string) bool {
	if c.Mentions != nil && c.Mentions.Has(a.userID) {
		return true
	}
	if c.Format == event.FormatHTML {
		for _, m := range pillHref.FindAllStringSubmatch(c.FormattedBody, -1) {
			if linkTargetsUser(m[1], a.userID) {
				return true
			}
		}
	}
	return strings.Contains(prose, a.userID.String())
}

// linkTargetsUser parses a matrix.to or matrix: URI and compares its user.
func linkTargetsUser(href string, user id.UserID) bool {
	uri, err := id.ParseMatrixURIOrMatrixToURL(href)
	if err == nil && uri != nil && uri.Sigil1 == '@' {
		return uri.UserID() == user
	}
	// Some clients do not escape the fragment; compare the raw text too.
	if u, err := url.PathUnescape(href); err == nil {
		return strings.HasSuffix(u, "/"+user.String())
	}
	return false
}
