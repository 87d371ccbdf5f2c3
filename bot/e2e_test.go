package bot

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/internal/dendritetest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// roomsFixture is one homeserver, one fake LLM and one running bridge shared
// by the subtests of TestBridgeRooms; each subtest makes its own rooms.
type roomsFixture struct {
	hs    *dendritetest.Server
	llm   *llmtest.Server
	bot   *botEnv
	botID id.UserID
	alice *member // allowed, creates the rooms (power level 100)
	bob   *member // allowed, power level 0
}

// The bridge under test: display name Ada, keywords that do not contain the
// name (so each activation path is tested on its own), invites allowed from
// @member-*, never into #never.
func newRoomsFixture(t *testing.T) *roomsFixture {
	hs := dendritetest.Start(t)
	llm := llmtest.New(t)
	acct := registerBot(t, hs, "ada")
	env := botSettings(hs, llm, acct, t.TempDir(), map[string]string{
		"ACTIVATION_KEYWORDS": "hey assistant,robot",
		"ALLOWED_USERS":       "@member-*:localhost",
		"NEVER_JOIN_ROOMS":    "#never:localhost",
		"MAX_CONTEXT_MESSAGES": "5",
	})
	f := &roomsFixture{hs: hs, llm: llm, bot: startBot(t, env), botID: acct.userID}
	f.alice = newMember(t, hs, "member-alice", false)
	f.bob = newMember(t, hs, "member-bob", false)
	return f
}

// groupRoom makes a room of alice, bob and the bot, and waits for the bot's
// join and intro.
func (f *roomsFixture) groupRoom(t *testing.T, name string) id.RoomID {
	t.Helper()
	room := f.alice.createRoom(&mautrix.ReqCreateRoom{Name: name, Invite: []id.UserID{f.bob.cli.UserID, f.botID}})
	f.bob.join(room)
	f.alice.wait("bot joins "+name, membershipOf(room, f.botID, event.MembershipJoin))
	f.alice.wait("intro in "+name, messageFrom(room, f.botID, event.MsgNotice))
	return room
}

// ask sends a message and waits for the bot's complete answer cycle.
func (f *roomsFixture) ask(t *testing.T, from *member, room id.RoomID, content *event.MessageEventContent) (asked id.EventID, reply *event.Event) {
	t.Helper()
	asked = from.send(room, content)
	reply = from.wait("reply to "+content.Body, replyTo(f.botID, asked, event.MsgText))
	from.wait("✅ on "+content.Body, reactionTo(asked, reactDone))
	return asked, reply
}

func TestBridgeRooms(t *testing.T) {
	f := newRoomsFixture(t)
	t.Run("InviteJoinsWithOneIntro", f.testInviteJoins)
	t.Run("InviteRefused", f.testInviteRefused)
	t.Run("ActivationPaths", f.testActivationPaths)
	t.Run("ReactionsAndReply", f.testReactionsAndReply)
	t.Run("ThreadReply", f.testThreadReply)
	t.Run("LongReplyIsSplit", f.testLongReply)
	t.Run("ContextMessages", f.testContextMessages)
	t.Run("LLMDown", f.testLLMDown)
	t.Run("Commands", f.testCommands)
	t.Run("Privacy", f.testPrivacy)
	t.Run("LeavesWhenAlone", f.testLeavesWhenAlone)
	t.Run("AllowedRooms", f.testAllowedRooms)
}

func (f *roomsFixture) testInviteJoins(t *testing.T) {
	room := f.groupRoom(t, "invite")
	// The intro is posted once, also after the invite is seen again in the
	// joined room's state; a later message proves the queue moved past it.
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, are you there?"})
	intros := f.alice.find(messageFrom(room, f.botID, event.MsgNotice))
	if len(intros) != 1 {
		t.Fatalf("want exactly one intro, got %d", len(intros))
	}
	if body := intros[0].Content.AsMessage().Body; !strings.Contains(body, "!ada help") || !strings.Contains(body, "stored") {
		t.Errorf("intro should explain commands and storage, got %q", body)
	}
	if n := f.bot.count(`SELECT count(*) FROM bridge_rooms WHERE room_id = ? AND intro_sent = 1`, room.String()); n != 1 {
		t.Errorf("intro_sent not persisted")
	}
}

func (f *roomsFixture) testInviteRefused(t *testing.T) {
	// A room in NEVER_JOIN_ROOMS (named by its alias), from an allowed user.
	never := f.alice.createRoom(&mautrix.ReqCreateRoom{Name: "never", RoomAliasName: "never", Invite: []id.UserID{f.botID}})
	// An invite from a user outside ALLOWED_USERS.
	mallory := newMember(t, f.hs, "mallory", false)
	stranger := mallory.createRoom(&mautrix.ReqCreateRoom{Name: "stranger", Invite: []id.UserID{f.botID}})

	f.alice.wait("invite to #never rejected", membershipOf(never, f.botID, event.MembershipLeave))
	mallory.wait("invite from mallory rejected", membershipOf(stranger, f.botID, event.MembershipLeave))
	for _, c := range []struct {
		m    *member
		room id.RoomID
	}{{f.alice, never}, {mallory, stranger}} {
		if joins := c.m.find(membershipOf(c.room, f.botID, event.MembershipJoin)); len(joins) > 0 {
			t.Errorf("bot joined %s", c.room)
		}
	}
}

func (f *roomsFixture) testActivationPaths(t *testing.T) {
	room := f.groupRoom(t, "activation")
	cases := []struct {
		name    string
		content *event.MessageEventContent
	}{
		{"mention", &event.MessageEventContent{MsgType: event.MsgText, Body: "what do you think?",
			Mentions: &event.Mentions{UserIDs: []id.UserID{f.botID}}}},
		{"pill", &event.MessageEventContent{MsgType: event.MsgText, Body: "the bot: what is 2+2?", Format: event.FormatHTML,
			FormattedBody: `<a href="https://matrix.to/#/` + f.botID.String() + `">the bot</a>: what is 2+2?`}},
		{"display name", &event.MessageEventContent{MsgType: event.MsgText, Body: "I wonder what ADA says about this"}},
		{"keyword", &event.MessageEventContent{MsgType: event.MsgText, Body: "Hey   assistant, tell me a joke"}},
		{"second keyword", &event.MessageEventContent{MsgType: event.MsgText, Body: "robot: status report"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { f.ask(t, f.alice, room, c.content) })
	}

	// Messages that must not wake the bot. A later question proves the room's
	// queue has handled them (it is processed in order).
	silent := []id.EventID{
		f.alice.say(room, "the weather is nice today"),
		f.alice.say(room, "Canada is a big country"),
		f.alice.say(room, "robots and assistants are words, not keywords here"),
		f.alice.send(room, &event.MessageEventContent{MsgType: event.MsgNotice, Body: "Ada, a notice is never answered"}),
	}
	edit := &event.MessageEventContent{MsgType: event.MsgText, Body: "* Ada, edited"}
	edit.SetEdit(silent[0])
	silent = append(silent, f.alice.send(room, edit))
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, last one"})
	for _, ev := range silent {
		if got := f.alice.find(anyReactionTo(ev)); len(got) > 0 {
			t.Errorf("bot reacted to a message that should not wake it: %s", describe(got[0]))
		}
	}

	t.Run("dm", func(t *testing.T) {
		dm := f.alice.createRoom(&mautrix.ReqCreateRoom{IsDirect: true, Preset: "trusted_private_chat", Invite: []id.UserID{f.botID}})
		f.alice.wait("bot joins the DM", membershipOf(dm, f.botID, event.MembershipJoin))
		f.ask(t, f.alice, dm, &event.MessageEventContent{MsgType: event.MsgText, Body: "no name, no mention, just a question"})
	})
}

func (f *roomsFixture) testReactionsAndReply(t *testing.T) {
	room := f.groupRoom(t, "reactions")
	f.llm.Script(llmtest.Reply{Tokens: []string{"**Bold** answer ", "with <b>raw html</b> ", "and a [link](https://matrix.to/#/@member-bob:localhost)."}})
	asked, reply := f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, format something"})

	events := f.alice.find(func(e *event.Event) bool { return e.RoomID == room })
	brain := indexOf(events, reactionTo(asked, reactThinking))
	answer := indexOf(events, func(e *event.Event) bool { return e.ID == reply.ID })
	done := indexOf(events, reactionTo(asked, reactDone))
	if brain < 0 || !(brain < answer && answer < done) {
		t.Fatalf("want 🧠, then the reply, then ✅; got positions %d, %d, %d", brain, answer, done)
	}
	if got := f.alice.find(reactionTo(asked, reactFailed)); len(got) > 0 {
		t.Errorf("unexpected ❌")
	}
	c := reply.Content.AsMessage()
	if want := "**Bold** answer with <b>raw html</b> and a [link](https://matrix.to/#/@member-bob:localhost)."; !strings.Contains(c.Body, "Bold") || !strings.Contains(c.Body, "raw html") {
		t.Errorf("body %q does not carry the answer %q", c.Body, want)
	}
	if !strings.Contains(c.FormattedBody, "<strong>Bold</strong>") {
		t.Errorf("Markdown not rendered: %q", c.FormattedBody)
	}
	if strings.Contains(c.FormattedBody, "<b>") || !strings.Contains(c.FormattedBody, "&lt;b&gt;") {
		t.Errorf("raw HTML from the model must be escaped: %q", c.FormattedBody)
	}
	if c.Mentions == nil || len(c.Mentions.UserIDs) != 1 || c.Mentions.UserIDs[0] != f.alice.cli.UserID || c.Mentions.Room {
		t.Errorf("m.mentions must name only the asker, got %+v", c.Mentions)
	}
	if c.RelatesTo.GetReplyTo() != asked || c.RelatesTo.GetThreadParent() != "" {
		t.Errorf("want a plain reply to %s, got %+v", asked, c.RelatesTo)
	}
}

func (f *roomsFixture) testThreadReply(t *testing.T) {
	room := f.groupRoom(t, "threads")
	root := f.alice.say(room, "a thread about nothing")
	q := &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, in the thread?"}
	q.RelatesTo = (&event.RelatesTo{}).SetThread(root, root)
	asked, reply := f.ask(t, f.alice, room, q)
	rel := reply.Content.AsMessage().RelatesTo
	if rel.GetThreadParent() != root || rel.GetReplyTo() != asked || rel.IsFallingBack {
		t.Errorf("want a reply to %s inside thread %s, got %+v", asked, root, rel)
	}
}

func (f *roomsFixture) testLongReply(t *testing.T) {
	room := f.groupRoom(t, "long")
	para := strings.Repeat("All work and no play makes a long answer. ", 40) + "\n\n"
	var tokens []string
	for i := 0; i < 40; i++ { // about 68 KB: over one event's size limit
		tokens = append(tokens, fmt.Sprintf("Paragraph %d. %s", i, para))
	}
	f.llm.Script(llmtest.Reply{Tokens: tokens})
	asked, first := f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, write a lot"})
	parts := f.alice.find(func(e *event.Event) bool {
		return e.RoomID == room && e.Sender == f.botID && e.Type == event.EventMessage &&
			e.Content.AsMessage().MsgType == event.MsgText && e.Timestamp >= first.Timestamp
	})
	if len(parts) < 2 {
		t.Fatalf("a %d-byte answer should be split, got %d message(s)", len(strings.Join(tokens, "")), len(parts))
	}
	var all strings.Builder
	for _, p := range parts {
		all.WriteString(p.Content.AsMessage().Body)
	}
	for _, want := range []string{"Paragraph 0.", "Paragraph 39."} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("split reply lost %q", want)
		}
	}
	if parts[0].Content.AsMessage().RelatesTo.GetReplyTo() != asked {
		t.Errorf("the first part must reply to the question")
	}
}

func (f *roomsFixture) testContextMessages(t *testing.T) {
	room := f.groupRoom(t, "context")
	f.bob.say(room, "the secret colour is teal")
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, what is the secret colour?"})
	reqs := f.llm.ChatRequests()
	prompt := fmt.Sprint(reqs[len(reqs)-1].Messages)
	if !strings.Contains(prompt, "the secret colour is teal") || !strings.Contains(prompt, "member-bob") {
		t.Errorf("the room's recent messages, with sender names, should be in the prompt:\n%s", prompt)
	}
	if strings.Count(prompt, "what is the secret colour?") != 1 {
		t.Errorf("the question itself should appear once (as the prompt), not also as context")
	}
}

func (f *roomsFixture) testLLMDown(t *testing.T) {
	room := f.groupRoom(t, "llm-down")
	f.llm.Script(llmtest.Reply{Status: 500, Error: "model crashed"})
	asked := f.alice.say(room, "Ada, are you broken?")
	f.alice.wait("🧠", reactionTo(asked, reactThinking))
	f.alice.wait("❌", reactionTo(asked, reactFailed))
	n := f.alice.wait("failure notice", replyTo(f.botID, asked, event.MsgNotice))
	body := n.Content.AsMessage().Body
	if !strings.Contains(body, "could not answer") || !strings.Contains(body, "language model") {
		t.Errorf("the notice should say plainly what failed, got %q", body)
	}
	if strings.Contains(body, "{") {
		t.Errorf("the notice must not contain raw JSON: %q", body)
	}
	if got := f.alice.find(replyTo(f.botID, asked, event.MsgText)); len(got) > 0 {
		t.Errorf("no reply text may be posted on failure, got %s", describe(got[0]))
	}
	if got := f.alice.find(reactionTo(asked, reactDone)); len(got) > 0 {
		t.Errorf("no ✅ on failure")
	}
}

// command sends a command as m and returns the bot's notice reply body.
func (f *roomsFixture) command(t *testing.T, m *member, room id.RoomID, text string) string {
	t.Helper()
	asked := m.say(room, text)
	return m.wait("reply to "+text, replyTo(f.botID, asked, event.MsgNotice)).Content.AsMessage().Body
}

func (f *roomsFixture) testCommands(t *testing.T) {
	room := f.groupRoom(t, "commands")
	help := f.command(t, f.bob, room, "!ada help")
	for _, want := range []string{"!ada privacy on", "!ada privacy off", "!ada privacy status", "!ada clear", "!ada status", "!ada help"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	status := f.command(t, f.bob, room, "!ADA status")
	for _, want := range []string{"in-process", "Language model: ✅ ollama · test-model", "Memory store: ✅", "Joined rooms:", "memory storage is on", "test-version"} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	if got := f.command(t, f.bob, room, "!ada frobnicate"); !strings.Contains(got, "!ada help") {
		t.Errorf("an unknown command should get a hint, got %q", got)
	}
	if got := f.command(t, f.bob, room, "!ada privacy maybe"); !strings.Contains(got, "privacy on|off|status") {
		t.Errorf("an unknown subcommand should show the usage, got %q", got)
	}
	convBefore := f.conversation(room)
	if got := f.command(t, f.bob, room, "!ada clear"); !strings.Contains(got, "new conversation") {
		t.Errorf("clear: %q", got)
	}
	if convAfter := f.conversation(room); convAfter == convBefore || !strings.HasPrefix(convAfter, "conv-") {
		t.Errorf("clear should start a new conversation id: %s -> %s", convBefore, convAfter)
	}
}

func (f *roomsFixture) conversation(room id.RoomID) string {
	var conv string
	if err := f.bot.reader().QueryRow(`SELECT conversation_id FROM bridge_rooms WHERE room_id = ?`, room.String()).Scan(&conv); err != nil {
		f.bot.t.Fatalf("conversation of %s: %v", room, err)
	}
	return conv
}

func (f *roomsFixture) testPrivacy(t *testing.T) {
	room := f.groupRoom(t, "privacy")
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, remember this room"})
	msgs, docs := f.bot.storedFromRoom(room)
	if msgs == 0 || docs == 0 {
		t.Fatalf("with storage on, the room's messages and turns are stored; got %d messages, %d documents", msgs, docs)
	}

	refusal := f.command(t, f.bob, room, "!ada privacy off")
	if !strings.Contains(refusal, "Only room moderators") || !strings.Contains(refusal, "memory storage is on") {
		t.Errorf("a non-moderator must be refused and told the state, got %q", refusal)
	}
	if got := f.command(t, f.alice, room, "!ada privacy off"); !strings.Contains(got, "Privacy mode is now ON") || !strings.Contains(got, "nothing from this room is stored") {
		t.Errorf("privacy off: %q", got)
	}
	if got := f.command(t, f.bob, room, "!ada privacy status"); !strings.Contains(got, "privacy mode is on") {
		t.Errorf("privacy status for anyone: %q", got)
	}
	f.bob.say(room, "this must not be stored")
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, do not remember this"})
	if m2, d2 := f.bot.storedFromRoom(room); m2 != msgs || d2 != docs {
		t.Errorf("privacy mode stored data: messages %d -> %d, documents %d -> %d", msgs, m2, docs, d2)
	}
	reqs := f.llm.ChatRequests()
	if prompt := fmt.Sprint(reqs[len(reqs)-1].Messages); !strings.Contains(prompt, "this must not be stored") {
		t.Errorf("privacy mode still gives the model the room's recent messages (from memory only)")
	}

	if got := f.command(t, f.alice, room, "!ada privacy on"); !strings.Contains(got, "Memory storage is now ON") {
		t.Errorf("privacy on: %q", got)
	}
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, remember again"})
	if m3, d3 := f.bot.storedFromRoom(room); m3 <= msgs || d3 <= docs {
		t.Errorf("privacy on should restore storage: messages %d -> %d, documents %d -> %d", msgs, m3, docs, d3)
	}
}

func (f *roomsFixture) testLeavesWhenAlone(t *testing.T) {
	room := f.groupRoom(t, "alone")
	for _, m := range []*member{f.bob, f.alice} {
		if _, err := m.cli.LeaveRoom(t.Context(), room); err != nil {
			t.Fatalf("leave: %v", err)
		}
	}
	// A former member only sees the room as it was when they left, so ask
	// the homeserver for the bot's own rooms.
	deadline := time.Now().Add(testTimeout)
	for {
		joined, err := f.bot.bot.cli.JoinedRooms(t.Context())
		if err == nil && !slices.Contains(joined.JoinedRooms, room) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("bot did not leave the empty room (err %v)", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// testAllowedRooms runs a second bridge (another account, same homeserver)
// that may only join #only.
func (f *roomsFixture) testAllowedRooms(t *testing.T) {
	acct := registerBot(t, f.hs, "ada-two")
	startBot(t, botSettings(f.hs, f.llm, acct, t.TempDir(), map[string]string{"ALLOWED_ROOMS": "#only:localhost", "SEND_INTRO_ON_JOIN": "false"}))
	only := f.alice.createRoom(&mautrix.ReqCreateRoom{Name: "only", RoomAliasName: "only", Invite: []id.UserID{acct.userID}})
	other := f.alice.createRoom(&mautrix.ReqCreateRoom{Name: "other", Invite: []id.UserID{acct.userID}})
	f.alice.wait("joins #only", membershipOf(only, acct.userID, event.MembershipJoin))
	f.alice.wait("rejects a room not in ALLOWED_ROOMS", membershipOf(other, acct.userID, event.MembershipLeave))
	if got := f.alice.find(messageFrom(only, acct.userID, event.MsgNotice)); len(got) > 0 {
		t.Errorf("SEND_INTRO_ON_JOIN=false, but an intro was sent")
	}
}
