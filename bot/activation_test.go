package bot

import (
	"testing"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

func TestActivation(t *testing.T) {
	const bot = id.UserID("@ada:example.org")
	all := Options{UserID: bot.String(), DisplayName: "Ada", Keywords: []string{"ada", "hey ada"},
		RespondToMentions: true, RespondToDMs: true, RespondToDisplayName: true, RespondToKeywords: true}
	only := func(mod func(*Options)) Options {
		o := all
		o.RespondToMentions, o.RespondToDMs, o.RespondToDisplayName, o.RespondToKeywords = false, false, false, false
		mod(&o)
		return o
	}
	text := func(body string) *event.MessageEventContent {
		return &event.MessageEventContent{MsgType: event.MsgText, Body: body}
	}
	html := func(body, formatted string) *event.MessageEventContent {
		return &event.MessageEventContent{MsgType: event.MsgText, Body: body, Format: event.FormatHTML, FormattedBody: formatted}
	}
	mentions := func(body string, users ...id.UserID) *event.MessageEventContent {
		return &event.MessageEventContent{MsgType: event.MsgText, Body: body, Mentions: &event.Mentions{UserIDs: users}}
	}
	for _, tc := range []struct {
		name    string
		opts    Options
		content *event.MessageEventContent
		dm      bool
		want    trigger
	}{
		{"m.mentions", all, mentions("hello", bot), false, triggerMention},
		{"m.mentions of someone else", only(func(o *Options) { o.RespondToMentions = true }), mentions("hello", "@bob:example.org"), false, triggerNone},
		{"matrix.to pill", all, html("the bot: hi", `<a href="https://matrix.to/#/@ada:example.org">the bot</a>: hi`), false, triggerMention},
		{"escaped pill", all, html("x", `<a href='https://matrix.to/#/%40ada%3Aexample.org'>x</a>`), false, triggerMention},
		{"matrix: URI pill", all, html("x", `<a href="matrix:u/ada:example.org">x</a>`), false, triggerMention},
		{"pill of someone else", only(func(o *Options) { o.RespondToMentions = true }), html("x", `<a href="https://matrix.to/#/@bob:example.org">x</a>`), false, triggerNone},
		{"full user id in text", all, text("ping @ada:example.org"), false, triggerMention},
		{"mentions off", only(func(o *Options) {}), mentions("hello", bot), false, triggerNone},
		{"dm", all, text("anything"), true, triggerDM},
		{"dm off", only(func(o *Options) {}), text("anything"), true, triggerNone},
		{"display name", only(func(o *Options) { o.RespondToDisplayName = true }), text("What does ADA think?"), false, triggerDisplayName},
		{"display name at the end", only(func(o *Options) { o.RespondToDisplayName = true }), text("thanks, Ada!"), false, triggerDisplayName},
		{"display name inside a word", only(func(o *Options) { o.RespondToDisplayName = true }), text("Canada and Adam"), false, triggerNone},
		{"keyword", only(func(o *Options) { o.RespondToKeywords = true }), text("ada, help"), false, triggerKeyword},
		{"two-word keyword across spaces", only(func(o *Options) { o.RespondToKeywords = true; o.Keywords = []string{"hey ada"} }), text("HEY   ADA what's up"), false, triggerKeyword},
		{"Canada never matches", all, text("I live in Canada"), false, triggerNone},
		{"keyword as part of a word", all, text("the adagio was slow"), false, triggerNone},
		{"keyword next to punctuation", all, text("(ada)"), false, triggerDisplayName},
		{"keywords off", only(func(o *Options) { o.Keywords = nil }), text("ada"), false, triggerNone},
		{"unrelated", all, text("the weather is nice"), false, triggerNone},
		{"unicode word boundary", all, text("Adaé"), false, triggerNone},
		// Issue 27, item 6: the name and keywords count in prose only.
		{"e-mail address", all, text("mail me at ada@example.org"), false, triggerNone},
		{"e-mail address with the name as domain", all, text("write to bob@ada.org"), false, triggerNone},
		{"URL", all, text("see https://example.org/ada/docs"), false, triggerNone},
		{"URL without a scheme", all, text("see www.ada.org or example.org/ada/docs"), false, triggerNone},
		{"domain", all, text("it is on ada.org now"), false, triggerNone},
		{"hashed word", all, text("ask in #ada-dev"), false, triggerNone},
		{"hyphenated word", all, text("ada-lovelace was first"), false, triggerNone},
		{"inline code", all, text("run `ada --help` first"), false, triggerNone},
		{"code block", all, text("look:\n```\nada serve\n```\nit fails"), false, triggerNone},
		{"quote of another member", all, text("> ada said hi\n\nreally?"), false, triggerNone},
		{"markdown link", all, text("read [the ada docs](https://x.org) now"), false, triggerNone},
		{"HTML code", all, html("run `ada` now", "run <code>ada</code> now"), false, triggerNone},
		{"HTML code block", all, html("```\nhey ada\n```", "<pre><code>hey ada\n</code></pre>"), false, triggerNone},
		{"HTML quote", all, html("> ada said hi\n\nreally?", "<blockquote><p>ada said hi</p></blockquote><p>really?</p>"), false, triggerNone},
		{"HTML link", all, html("the docs", `<a href="https://example.org/ada">ada docs</a>`), false, triggerNone},
		{"the HTML is what counts", all, html("ada", "<code>ada</code>"), false, triggerNone},
		{"prose beside a quote", all, html("> x\n\nAda, what now?", "<blockquote>x</blockquote><p>Ada, what now?</p>"), false, triggerDisplayName},
		{"prose in bold", only(func(o *Options) { o.RespondToKeywords = true }), html("**hey ada** hi", "<strong>hey ada</strong> hi"), false, triggerKeyword},
		{"name at the end of a sentence", all, text("thanks, ada."), false, triggerDisplayName},
		{"possessive", all, text("what is Ada's view?"), false, triggerDisplayName},
		{"user id in a quote", all, text("> <@ada:example.org> an old answer\n\nok"), false, triggerNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := newActivation(tc.opts).check(tc.content, tc.dm); got != tc.want {
				t.Errorf("check(%q) = %q, want %q", tc.content.Body, got, tc.want)
			}
		})
	}
}

func TestPromptText(t *testing.T) {
	o := Options{DisplayName: "Ada", UserID: "@ada:example.org", Keywords: []string{"ada", "hey ada", "hey assistant"}}
	md := &media{address: newAddress(o)}
	for in, want := range map[string]string{
		"Ada: what is 2+2?":                "what is 2+2?",
		"@ada:example.org, hello there":    "hello there",
		"ada , tell me":                    "tell me",
		"What does Ada think?":             "What does Ada think?",
		"Ada:":                             "Ada:",
		"  plain question  ":               "plain question",
		"Adam: this is not the bot's name": "Adam: this is not the bot's name",
		// Issue 27, item 9: the wake phrase is not part of the question.
		"hey ada, what is my dog called?": "what is my dog called?",
		"Hey Ada what is my dog called?":  "what is my dog called?",
		"hi ada! how are you?":            "how are you?",
		"hey assistant tell me a joke":    "tell me a joke",
		"hey   ADA,   what now":           "what now",
		"what is 2+2, Ada?":               "what is 2+2?",
		"thanks, @ada:example.org":        "thanks",
		"Ada is a name":                   "Ada is a name",
		"hey adam, hi":                    "hey adam, hi",
		"ada-lovelace: hi":                "ada-lovelace: hi",
		"hey ada":                         "hey ada",
		// Issue 40 item 15: the name before a question word, and CJK
		// punctuation after it, are an address too.
		"Ada what do you think of it?": "what do you think of it?",
		"ada how late is it":           "how late is it",
		"Ada please tell me a joke":    "please tell me a joke",
		"ada、今日は何曜日？":                  "今日は何曜日？",
		"Ada，你好":                       "你好",
		"Ada is great":                 "Ada is great",
		"Ada Lovelace wrote programs":  "Ada Lovelace wrote programs",
	} {
		if got := md.promptText(in); got != want {
			t.Errorf("promptText(%q) = %q, want %q", in, got, want)
		}
	}
}
