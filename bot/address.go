package bot

import (
	"html"
	"regexp"
	"strings"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// address finds how a member addressed Ada in a question, so that the
// model, the store and recall get the question alone (issue 27, item 9):
// with "hey ada, " left in, every question shares the words of the wake
// phrase and recalls look alike.
type address struct {
	// lead is an address at the start followed by punctuation: "Ada: ...",
	// "@ada:x, ...", "hey ada, ...", "hey assistant! ...".
	lead *regexp.Regexp
	// bare is one at the start followed by a space alone, where it cannot
	// be the subject of the sentence: a greeting and the name ("hey ada what
	// ..."), or a keyword of more than one word.
	bare *regexp.Regexp
	// asking is the name at the start before a question word, where it
	// cannot be the sentence's subject either: "Ada what do you think".
	asking *regexp.Regexp
	// trail is the name at the end after a comma: "what is 2+2, Ada?".
	trail *regexp.Regexp
	// user is the bot, whose mention pill at the start is an address too.
	user id.UserID
}

// greeting is an optional word before the name.
const greeting = `(?:hey|hi|hello|ok|okay|dear|yo)`

// addressPunct ends an address: ASCII, and the CJK and full-width marks
// ("ada、…", "Ada，…").
const addressPunct = `[:,;!、，：；！]`

// questionWord starts a question or a request; after the name it makes the
// name an address ("Ada what…"), where "Ada is…" stays a sentence about her.
const questionWord = `(?:what|who|whom|whose|where|when|why|how|which|can|could|would|will|do|does|did|should|shall|please|tell|give|show|explain|remind|help)\b`

func newAddress(o Options) *address {
	who := []string{regexp.QuoteMeta(o.UserID)} // first: "@ada:x" also starts with "@ada"
	if name := strings.TrimSpace(o.DisplayName); name != "" {
		who = append(who, "@?"+phrasePattern(name))
	}
	named := "(?:" + strings.Join(who, "|") + ")"
	all, multi := who, []string{greeting + `\s+` + named}
	for _, k := range o.Keywords {
		if strings.TrimSpace(k) == "" {
			continue
		}
		all = append(all, phrasePattern(k))
		if len(strings.Fields(k)) > 1 {
			multi = append(multi, phrasePattern(k))
		}
	}
	return &address{
		lead:   regexp.MustCompile(`(?i)^\s*(?:` + greeting + `[\s,]+)?(?:` + strings.Join(all, "|") + `)\s*` + addressPunct + `+\s*`),
		bare:   regexp.MustCompile(`(?i)^\s*(?:` + strings.Join(multi, "|") + `)\s+`),
		asking: regexp.MustCompile(`(?i)^\s*` + named + `\s+(` + questionWord + `)`),
		trail:  regexp.MustCompile(`(?i)\s*[,、，]\s*` + named + `\s*([?!.？！。]*)\s*$`),
		user:   id.UserID(o.UserID),
	}
}

// phrasePattern matches phrase's words with any white space between them.
func phrasePattern(phrase string) string {
	words := strings.Fields(phrase)
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	return strings.Join(words, `\s+`)
}

// strip removes the address from text; what is left may be empty.
func (a *address) strip(text string) string {
	rest := a.lead.ReplaceAllString(text, "")
	if rest == text {
		rest = a.bare.ReplaceAllString(text, "")
	}
	if rest == text {
		rest = a.asking.ReplaceAllString(text, "$1")
	}
	return strings.TrimSpace(a.trail.ReplaceAllString(rest, "$1"))
}

// leadingPill is a link at the start of a formatted body: its target and text.
var leadingPill = regexp.MustCompile(`(?is)^\s*(?:<p>)?\s*<a\s[^>]*href\s*=\s*["']([^"']+)["'][^>]*>(.*?)</a>`)

// tags matches HTML tags, to read a pill's text.
var tags = regexp.MustCompile(`<[^>]*>`)

// withoutPill is c's body without a mention pill of the bot at its start
// (the pill's text, whatever the client made it: "Ada", "@ada:x"), with the
// punctuation after it.
func (a *address) withoutPill(c *event.MessageEventContent) string {
	if c.Format != event.FormatHTML {
		return c.Body
	}
	m := leadingPill.FindStringSubmatch(c.FormattedBody)
	if m == nil || !linkTargetsUser(m[1], a.user) {
		return c.Body
	}
	text := strings.TrimSpace(html.UnescapeString(tags.ReplaceAllString(m[2], "")))
	body := strings.TrimSpace(c.Body)
	if text == "" || !strings.HasPrefix(strings.ToLower(body), strings.ToLower(text)) {
		return c.Body
	}
	return strings.TrimLeft(body[len(text):], " \t\n:,;!")
}
