package bot

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// newAddressingFixture is a bridge with the default name and keywords (Ada;
// "ada", "hey ada"), as members meet it, for issue 27's tests of what wakes
// it and what it hears.
func newAddressingFixture(t *testing.T) *roomsFixture {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	env := botSettings(hs, llm, acct, t.TempDir(), func(s *botSetup) {
		s.AllowedUsers = []string{"@member-*:localhost"}
	})
	f := &roomsFixture{hs: hs, llm: llm, bot: startBot(t, env), botID: acct.UserID}
	f.alice = bottest.NewMember(t, hs, "member-alice", false)
	f.bob = bottest.NewMember(t, hs, "member-bob", false)
	return f
}

// TestBridgeAddressing is issue 27's items 6, 7, 9 and 10 on a real
// homeserver with real member clients.
func TestBridgeAddressing(t *testing.T) {
	f := newAddressingFixture(t)
	t.Run("KeywordsInProseOnly", f.testKeywordsInProseOnly)
	t.Run("RepliesToAda", f.testRepliesToAda)
	t.Run("WhyShowsSummaries", f.testWhyShowsSummaries)
	t.Run("PrivacyTwice", f.testPrivacyTwice)
	t.Run("ExtraWordsGetUsage", f.testExtraWordsGetUsage)
	t.Run("RememberInPlainWords", f.testRememberInPlainWords)
	t.Run("IntroReadsAsSentence", f.testIntroReadsAsSentence)
	t.Run("TablesRender", f.testTablesRender)
	t.Run("LogNamesErrorKinds", f.testLogNamesErrorKinds)
}

// lastPrompt is the last message of the last answer the model was asked
// for (not a background summary).
func (f *roomsFixture) lastPrompt(t *testing.T) string {
	t.Helper()
	reqs := f.llm.ChatRequests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if msgs := reqs[i].Messages; len(msgs) > 0 && !isSummaryRequest(reqs[i]) {
			return msgs[len(msgs)-1].Content
		}
	}
	t.Fatal("the model was not asked")
	return ""
}

// isSummaryRequest tells the core's background summaries from answers.
func isSummaryRequest(r llmtest.Request) bool {
	return len(r.Messages) > 0 && strings.Contains(r.Messages[0].Content, "summaries of conversations")
}

// assertSilent checks, as m sees the room, that the bot did not react to any of events; call it
// after a later question was answered (a room's messages are handled in
// order).
func (f *roomsFixture) assertSilent(t *testing.T, m *bottest.Member, events map[string]id.EventID) {
	t.Helper()
	for what, ev := range events {
		if got := m.Find(bottest.AnyReactionTo(ev)); len(got) > 0 {
			t.Errorf("%s woke the bot: %s", what, bottest.Describe(got[0]))
		}
		if got := m.Find(bottest.ReplyTo(f.botID, ev, event.MsgText)); len(got) > 0 {
			t.Errorf("%s was answered", what)
		}
	}
}

// testKeywordsInProseOnly (item 6): the name and keywords wake Ada in prose
// only: not in code, quotes of others, links, URLs, e-mail addresses, or
// hyphenated and hashed words; the formatted body counts where there is one.
func (f *roomsFixture) testKeywordsInProseOnly(t *testing.T) {
	room := f.groupRoom(t, "prose")
	html := func(body, formatted string) *event.MessageEventContent {
		return &event.MessageEventContent{MsgType: event.MsgText, Body: body, Format: event.FormatHTML, FormattedBody: formatted}
	}
	silent := map[string]id.EventID{
		"an e-mail address": f.alice.Say(room, "mail me at ada@example.org"),
		"inline code":       f.alice.Say(room, "run `ada --version` and paste it"),
		"a code block":      f.alice.Say(room, "my config:\n```\nname: ada\n```\nlooks fine"),
		"a quote":           f.alice.Say(room, "> ada said hi\n\nshe did"),
		"a URL":             f.alice.Say(room, "the manual is at https://example.org/ada/docs"),
		"a hashed word":     f.alice.Say(room, "ask in #ada-dev please"),
		"a hyphenated word": f.alice.Say(room, "ada-lovelace wrote the first program"),
		"HTML inline code":  f.alice.Send(room, html("run `hey ada` in a shell", "run <code>hey ada</code> in a shell")),
		"an HTML quote":     f.alice.Send(room, html("> Ada said hi\n\nshe did", "<blockquote>\n<p>Ada said hi</p>\n</blockquote>\n<p>she did</p>")),
		"an HTML link":      f.alice.Send(room, html("docs: the Ada manual", `docs: <a href="https://example.org/docs">the Ada manual</a>`)),
	}
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, and this one?"})
	f.ask(t, f.bob, room, html("> a quote\n\nhey ada, and prose beside a quote?", "<blockquote><p>a quote</p></blockquote><p>hey ada, and prose beside a quote?</p>"))
	f.assertSilent(t, f.alice, silent)
}

// testRepliesToAda (item 7): a reply to one of Ada's answers wakes her
// whatever the client sends with it (m.mentions; only the relation with an
// <mx-reply> fallback; only the relation with a plain-text fallback), and
// the fallback quote reaches neither the model nor the store. A reply to
// another member's message does not wake her. In a plain room and in an
// encrypted one (the replied-to event's sender is read without decrypting).
func (f *roomsFixture) testRepliesToAda(t *testing.T) {
	t.Run("plain", func(t *testing.T) { f.checkReplies(t, f.alice, f.bob, f.groupRoom(t, "replies")) })
	t.Run("encrypted", func(t *testing.T) {
		carol := bottest.NewMember(t, f.hs, "member-carol", true)
		dave := bottest.NewMember(t, f.hs, "member-dave", true)
		room := carol.CreateRoom(&mautrix.ReqCreateRoom{Name: "secret replies", InitialState: bottest.EncryptedRoom(),
			Invite: []id.UserID{dave.Client.UserID, f.botID}})
		dave.Join(room)
		carol.Wait("bot joins", bottest.MembershipOf(room, f.botID, event.MembershipJoin))
		carol.Wait("intro", bottest.MessageFrom(room, f.botID, event.MsgNotice))
		f.checkReplies(t, carol, dave, room)
	})
}

// checkReplies is testRepliesToAda in one room: asker asks, replier replies
// to the answer.
func (f *roomsFixture) checkReplies(t *testing.T, asker, replier *bottest.Member, room id.RoomID) {
	f.llm.Script(llmtest.Reply{Tokens: []string{"Octopuses have three hearts."}})
	_, answer := f.ask(t, asker, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, tell me a fact"})
	quoted := fmt.Sprintf("> <%s> Octopuses have three hearts.\n\n", f.botID)
	htmlQuote := fmt.Sprintf(`<mx-reply><blockquote><a href="https://matrix.to/#/%s/%s">In reply to</a> `+
		`<a href="https://matrix.to/#/%s">%s</a><br>Octopuses have three hearts.</blockquote></mx-reply>`, room, answer.ID, f.botID, f.botID)
	reply := func(to id.EventID, c *event.MessageEventContent) *event.MessageEventContent {
		c.MsgType = event.MsgText
		c.RelatesTo = (&event.RelatesTo{}).SetReplyTo(to)
		return c
	}
	cases := []struct {
		name, question string
		content        *event.MessageEventContent
	}{
		{"m.mentions", "how many arms do they have?", reply(answer.ID, &event.MessageEventContent{Body: "how many arms do they have?",
			Mentions: &event.Mentions{UserIDs: []id.UserID{f.botID}}})},
		{"mx-reply fallback only", "and how many brains?", reply(answer.ID, &event.MessageEventContent{Body: quoted + "and how many brains?",
			Format: event.FormatHTML, FormattedBody: htmlQuote + "and how many brains?"})},
		{"plain-text fallback only", "what colour is their blood?", reply(answer.ID, &event.MessageEventContent{Body: quoted + "what colour is their blood?"})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			asked, _ := f.ask(t, replier, room, c.content)
			if prompt := f.lastPrompt(t); !strings.Contains(prompt, c.question) || strings.Contains(prompt, "three hearts") || strings.Contains(prompt, "> <") {
				t.Errorf("the model should get the question without the quote of the answer, got %q", prompt)
			}
			var stored string
			if err := f.bot.reader().QueryRow(`SELECT text FROM bridge_messages WHERE event_id = ?`, asked.String()).Scan(&stored); err != nil {
				t.Fatalf("the reply is not in the room's stored messages: %v", err)
			}
			if stored != c.question {
				t.Errorf("stored %q, want the question alone, %q", stored, c.question)
			}
			if n := f.bot.count(`SELECT count(*) FROM documents WHERE room_id = ? AND text LIKE '%> <%'`, room.String()); n > 0 {
				t.Errorf("%d stored turns hold a reply's fallback quote", n)
			}
		})
	}
	other := asker.Say(room, "lunch at noon?")
	toOther := reply(other, &event.MessageEventContent{Body: fmt.Sprintf("> <%s> lunch at noon?\n\nsure", asker.Client.UserID)})
	silent := map[string]id.EventID{"a reply to another member": replier.Send(room, toOther)}
	f.ask(t, asker, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, done?"})
	f.assertSilent(t, asker, silent)
}

// testWhyShowsSummaries (item 9): a second bridge that summarises after
// every exchange. The wake phrase ("hey ada, ") is not part of the question
// the model, the store and recall get, and `!ada why` labels each summary
// by the turns it covers and shows its text.
func (f *roomsFixture) testWhyShowsSummaries(t *testing.T) {
	acct := bottest.RegisterAccount(t, f.hs, "ada-why")
	why := startBot(t, botSettings(f.hs, f.llm, acct, t.TempDir(), func(s *botSetup) {
		s.AllowedUsers, s.SummaryEveryN = []string{"@member-*:localhost"}, 1
	}))
	const summary = "Alice said that her dog is called Rex."
	f.llm.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		if isSummaryRequest(r) && strings.Contains(fmt.Sprint(r.Messages), "called Rex") {
			return llmtest.Reply{Tokens: []string{summary}}, true
		}
		if isSummaryRequest(r) { // rewritten without the redacted question
			return llmtest.Reply{Tokens: []string{"Alice asked about her dog."}}, true
		}
		return llmtest.Reply{}, false
	})
	t.Cleanup(func() { f.llm.Handle(nil) })
	room := f.alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "why", Invite: []id.UserID{acct.UserID}})
	f.alice.Wait("joins", bottest.MembershipOf(room, acct.UserID, event.MembershipJoin))
	askContent := func(c *event.MessageEventContent) id.EventID {
		asked := f.alice.Send(room, c)
		f.alice.Wait("reply to "+c.Body, bottest.ReplyTo(acct.UserID, asked, event.MsgText))
		f.alice.Wait("✅ on "+c.Body, bottest.ReactionTo(asked, reactDone))
		return asked
	}
	ask := func(text string) id.EventID {
		return askContent(&event.MessageEventContent{MsgType: event.MsgText, Body: text})
	}

	rex := ask("hey ada, my dog is called Rex")
	if p := f.lastPrompt(t); strings.Contains(strings.ToLower(p), "hey ada") || !strings.Contains(p, "my dog is called Rex") {
		t.Errorf("the model should get the question without the wake phrase, got %q", p)
	}
	deadline := time.Now().Add(bottest.Timeout)
	for why.count(`SELECT count(*) FROM documents WHERE type = 'summary' AND room_id = ?`, room.String()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no summary was written")
		}
		time.Sleep(50 * time.Millisecond)
	}
	ask("Hey Ada what is my dog called?")
	if n := why.count(`SELECT count(*) FROM documents WHERE type = 'turn' AND room_id = ? AND lower(text) LIKE '%hey ada%'`, room.String()); n > 0 {
		t.Errorf("%d stored turns hold the wake phrase", n)
	}
	pill := &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada what else do you know?", Format: event.FormatHTML,
		FormattedBody: `<a href="https://matrix.to/#/` + acct.UserID.String() + `">Ada</a> what else do you know?`}
	askContent(pill)
	if p := f.lastPrompt(t); !strings.HasSuffix(p, "what else do you know?") || strings.Contains(p, "Ada what") {
		t.Errorf("the model should get the question without the mention pill, got %q", p)
	}
	asked := f.alice.Say(room, "!ada why")
	body := f.alice.Wait("why", bottest.ReplyTo(acct.UserID, asked, event.MsgNotice)).Content.AsMessage().Body
	for _, want := range []string{"“what else do you know?”", "Summaries", "turns 1–2", summary} {
		if !strings.Contains(body, want) {
			t.Errorf("!ada why lacks %q:\n%s", want, body)
		}
	}

	// Issue 26: redacting the first question removes the summary that
	// covered it; the kept `!ada why` quoting that summary goes too.
	if _, err := f.alice.Client.RedactEvent(t.Context(), room, rex); err != nil {
		t.Fatal(err)
	}
	why.waitStored(t, "the summary covering the redacted question goes", 0,
		`SELECT count(*) FROM documents WHERE type = 'summary' AND room_id = ? AND text LIKE '%Rex%'`, room.String())
	why.waitStored(t, "the kept !ada why quoting it goes", 0, `SELECT count(*) FROM bridge_why WHERE room_id = ?`, room.String())
	asked = f.alice.Say(room, "!ada why")
	if body := f.alice.Wait("why after the redaction", bottest.ReplyTo(acct.UserID, asked, event.MsgNotice)).Content.AsMessage().Body; strings.Contains(body, "Rex") ||
		strings.Contains(body, "have not answered") || !strings.Contains(body, "taken back") {
		t.Errorf("!ada why after the redaction must say the answer was taken back, not quote it nor deny answering:\n%s", body)
	}
}

// testPrivacyTwice (item 10): asking for the state the room already has
// says so, instead of announcing a change.
func (f *roomsFixture) testPrivacyTwice(t *testing.T) {
	room := f.groupRoom(t, "privacy twice")
	for _, step := range []struct{ cmd, want string }{
		{"!ada privacy off", "I store nothing from this room now"},
		{"!ada storage off", "already store nothing"},
		{"!ada storage on", "I store what is said here again"},
		{"!ada privacy on", "already store"},
	} {
		if got := f.command(t, f.alice, room, step.cmd); !strings.Contains(got, step.want) {
			t.Errorf("%s: want %q, got %q", step.cmd, step.want, got)
		}
	}
}

// testExtraWordsGetUsage (item 10): a command that takes no words answers
// extra words with its usage line and does nothing.
func (f *roomsFixture) testExtraWordsGetUsage(t *testing.T) {
	room := f.groupRoom(t, "extra words")
	conv := f.conversation(room)
	for cmd, usage := range map[string]string{
		"!ada clear everything":      "Usage: `!ada clear`",
		"!ada why not":               "Usage: `!ada why`",
		"!ada privacy status please": "Usage: `!ada privacy status`",
	} {
		if got := f.command(t, f.alice, room, cmd); !strings.Contains(got, usage) {
			t.Errorf("%s: want the usage line %q, got %q", cmd, usage, got)
		}
	}
	if f.conversation(room) != conv {
		t.Errorf("!ada clear with extra words started a new conversation")
	}
}

// testRememberInPlainWords (item 10): `remember` stores its text with the
// white space normalised, as the confirmation shows it, and a text over the
// limit is refused in plain words, not with the API's message.
func (f *roomsFixture) testRememberInPlainWords(t *testing.T) {
	room := f.groupRoom(t, "remember")
	f.command(t, f.alice, room, "!ada remember   the  boiler\n  code   is 4417  ")
	mems := f.bot.roomMemories(t, room)
	if len(mems) != 1 || !strings.HasSuffix(mems[0].Text, ": the boiler code is 4417") {
		t.Errorf("want one memory with normalised white space, got %q", memoryTexts(mems))
	}
	long := f.command(t, f.alice, room, "!ada remember "+strings.Repeat("word ", 2100))
	if !strings.Contains(long, "too long") || !strings.Contains(long, "10000 characters") || strings.Contains(long, "text:") {
		t.Errorf("an over-long memory should be refused in plain words, got %q", long)
	}
}

// testIntroReadsAsSentence (item 10): the intro lists the ways to ask as a
// sentence ("…, … or …"), and a direct chat gets a direct chat's wording.
func (f *roomsFixture) testIntroReadsAsSentence(t *testing.T) {
	room := f.groupRoom(t, "intro")
	intro := f.alice.Find(bottest.MessageFrom(room, f.botID, event.MsgNotice))[0].Content.AsMessage().Body
	if !strings.Contains(intro, "use a keyword (“ada”, “hey ada”) or write to me in a direct chat.") {
		t.Errorf("the intro's list should read as a sentence, got %q", intro)
	}
	dm := f.alice.CreateRoom(&mautrix.ReqCreateRoom{IsDirect: true, Preset: "trusted_private_chat", Invite: []id.UserID{f.botID}})
	intro = f.alice.Wait("intro in the DM", bottest.MessageFrom(dm, f.botID, event.MsgNotice)).Content.AsMessage().Body
	if !strings.Contains(intro, "direct chat: just write to me") || strings.Contains(intro, "mention me") {
		t.Errorf("a direct chat's intro should say every message is for me, got %q", intro)
	}
}

// testTablesRender (item 10): a Markdown table in an answer is posted as an
// HTML table.
func (f *roomsFixture) testTablesRender(t *testing.T) {
	room := f.groupRoom(t, "tables")
	f.llm.Script(llmtest.Reply{Tokens: []string{"Here you are:\n\n| Day | Food |\n|-----|------|\n", "| Mon | soup |\n| Tue | rice |\n"}})
	_, reply := f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, the menu as a table"})
	if html := reply.Content.AsMessage().FormattedBody; !strings.Contains(html, "<table>") || !strings.Contains(html, "<td>soup</td>") {
		t.Errorf("the table should be rendered as HTML, got %q", html)
	}

	// A table longer than one message: each part is a table of its own,
	// with the header repeated, never rows shown as text.
	rows := []string{"A long one:\n\n| Day | Soup |\n|-----|------|\n"}
	for i := range 500 {
		rows = append(rows, fmt.Sprintf("| day %d | the soup of the day number %d |\n", i, i))
	}
	_, parts := f.askLong(t, room, "Ada, a long table", rows)
	for i, p := range parts {
		if html := p.Content.AsMessage().FormattedBody; !strings.Contains(html, "<table>") || strings.Contains(html, "| day") {
			t.Errorf("part %d is not a table of its own: %.200q", i, html)
		}
	}
}

// testLogNamesErrorKinds (item 10): a failed answer's log line names the
// error's kind, not its number.
func (f *roomsFixture) testLogNamesErrorKinds(t *testing.T) {
	room := f.groupRoom(t, "log kinds")
	f.llm.Script(llmtest.Reply{Status: 500, Error: "model crashed"})
	asked := f.alice.Say(room, "Ada, are you broken?")
	f.alice.Wait("❌", bottest.ReactionTo(asked, reactFailed))
	var line string
	for _, l := range strings.Split(f.bot.logs.String(), "\n") {
		if strings.Contains(l, `msg="answer failed"`) && strings.Contains(l, asked.String()) {
			line = l
		}
	}
	if !strings.Contains(line, "kind=upstream") {
		t.Errorf("the log line should name the kind, got %q", line)
	}
}

// askLong has alice ask question, scripts the answer's tokens, and returns
// the parts of the answer, which must be more than one message.
func (f *roomsFixture) askLong(t *testing.T, room id.RoomID, question string, tokens []string) (id.EventID, []*event.Event) {
	t.Helper()
	f.llm.Script(llmtest.Reply{Tokens: tokens})
	asked, first := f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: question})
	parts := f.alice.Find(func(e *event.Event) bool {
		return e.RoomID == room && e.Sender == f.botID && e.Type == event.EventMessage &&
			e.Content.AsMessage().MsgType == event.MsgText && e.Timestamp >= first.Timestamp
	})
	if len(parts) < 2 {
		t.Fatalf("a %d-byte answer should be split, got %d message(s)", len(strings.Join(tokens, "")), len(parts))
	}
	return asked, parts
}
