package bot

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// extractFacts makes the fake model answer memory extraction like a model
// that reads the exchange: when the exchange holds said, it returns fact,
// about the name its text starts with ("member-bob's cat..." is about
// member-bob). Other requests go to the scripts as usual.
func extractFacts(t *testing.T, llm *llmtest.Server, facts map[string]string) {
	llm.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		if r.Format == nil || len(r.Messages) < 2 {
			return llmtest.Reply{}, false
		}
		exchange := r.Messages[len(r.Messages)-1].Content
		_, shown, _ := strings.Cut(exchange, "The exchange:")
		for said, fact := range facts {
			if strings.Contains(shown, said) {
				about, _, _ := strings.Cut(fact, "'s ")
				return llmtest.Reply{Tokens: []string{fmt.Sprintf(`{"facts":[{"text":%q,"importance":4,"replaces":[],"about":%q}]}`, fact, about)}}, true
			}
		}
		return llmtest.Reply{Tokens: []string{`{"facts":[]}`}}, true
	})
	t.Cleanup(func() { llm.Handle(nil) })
}

// roomMemories lists a room's memories as the core holds them.
func (e *botEnv) roomMemories(t *testing.T, room id.RoomID) []core.Memory {
	t.Helper()
	page, err := e.svc.MemoryPage(context.Background(), core.MemoryQuery{Scope: core.EntityScope(room.String()), Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	return page.Items
}

// waitMemories waits until the room's memories satisfy ok.
func (e *botEnv) waitMemories(t *testing.T, room id.RoomID, what string, ok func([]core.Memory) bool) []core.Memory {
	t.Helper()
	deadline := time.Now().Add(bottest.Timeout)
	for {
		mems := e.roomMemories(t, room)
		if ok(mems) {
			return mems
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the room's memories are %v", what, memoryTexts(mems))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func memoryTexts(mems []core.Memory) []string {
	var out []string
	for _, m := range mems {
		out = append(out, m.Text)
	}
	return out
}

func holding(text string) func([]core.Memory) bool {
	return func(mems []core.Memory) bool {
		for _, m := range mems {
			if strings.Contains(m.Text, text) {
				return true
			}
		}
		return false
	}
}

// lastPrompt is the whole prompt of the model's latest answer request.
func lastPrompt(t *testing.T, llm *llmtest.Server) string {
	t.Helper()
	reqs := llm.ChatRequests()
	if len(reqs) == 0 {
		t.Fatal("the model got no request")
	}
	return fmtMessages(reqs[len(reqs)-1].Messages)
}

// testRoomMemory is issue 11's first acceptance check: a fact told in room
// A is learned (naming the member), survives !ada clear, is used in room A
// and never in room B, is listed, explained by !ada why, and forgotten.
func (f *roomsFixture) testRoomMemory(t *testing.T) {
	roomA, roomB := f.groupRoom(t, "memory A"), f.groupRoom(t, "memory B")
	checkRoomMemory(t, f.llm, f.bot, f.alice, f.botID, roomA, roomB)
}

// checkRoomMemory runs the room-memory story with member m, in plain or
// encrypted rooms.
func checkRoomMemory(t *testing.T, llm *llmtest.Server, bot *botEnv, m *bottest.Member, botID id.UserID, roomA, roomB id.RoomID) {
	name := m.Client.UserID.Localpart() // the display name the homeserver gave
	extractFacts(t, llm, map[string]string{"my cat is called Miso": name + "'s cat is called Miso"})
	ask := func(room id.RoomID, text string) {
		t.Helper()
		asked := m.Say(room, text)
		m.Wait("reply to "+text, bottest.ReplyTo(botID, asked, event.MsgText))
		m.Wait("✅ on "+text, bottest.ReactionTo(asked, reactDone))
	}
	command := func(room id.RoomID, text string) string {
		t.Helper()
		asked := m.Say(room, text)
		return m.Wait("reply to "+text, bottest.ReplyTo(botID, asked, event.MsgNotice)).Content.AsMessage().Body
	}

	ask(roomA, "hey ada, my cat is called Miso")
	answered := time.Now()
	mems := bot.waitMemories(t, roomA, "the fact is learned", holding("Miso"))
	t.Logf("the fact was stored %s after ✅", time.Since(answered).Round(time.Millisecond))
	// The core's lines about a room's chat carry the room (the bridge's
	// logger travels in the context, into the background job too).
	if !logLineWith(bot.logs.String(), "memories extracted", "room_id="+roomA.String()) {
		t.Errorf("the extraction's log line does not name the room")
	}
	if mems[0].Meta.UserID != m.Client.UserID.String() || !strings.Contains(mems[0].Text, name) {
		t.Errorf("the memory must name the member and carry her user id: %q, user_id %q", mems[0].Text, mems[0].Meta.UserID)
	}
	ex := llm.FormattedRequests()
	if sys := ex[len(ex)-1].Messages[0].Content; !strings.Contains(sys, "is called "+bot.bot.mx.displayName(context.Background(), roomA, m.Client.UserID)) {
		t.Errorf("the extraction must name the speaker, not the configured user:\n%s", sys)
	}
	ask(roomA, "Ada, what a nice day")
	if got := command(roomA, "!ada clear"); !strings.Contains(got, "memories are kept") {
		t.Errorf("clear must say the room's memories are kept: %q", got)
	}

	ask(roomA, "ada, what is my cat called?")
	if p := lastPrompt(t, llm); !strings.Contains(p, "Miso") {
		t.Fatalf("after !ada clear the room's memory must reach the model:\n%s", p)
	}
	why := command(roomA, "!ada why")
	t.Logf("!ada why:\n%s", why)
	for _, want := range []string{"Memories (1)", "Miso", "score", "close in meaning"} {
		if !strings.Contains(why, want) {
			t.Errorf("!ada why lacks %q:\n%s", want, why)
		}
	}
	ask(roomB, "ada, what is my cat called?")
	if p := lastPrompt(t, llm); strings.Contains(p, "Miso") {
		t.Fatalf("a fact of room A reached the model in room B:\n%s", p)
	}
	if got := bot.roomMemories(t, roomB); len(got) != 0 {
		t.Errorf("room B has memories: %v", memoryTexts(got))
	}

	list := command(roomA, "!ada memories")
	t.Logf("!ada memories:\n%s", list)
	if !strings.Contains(list, "1. "+name+"'s cat is called Miso") {
		t.Fatalf("!ada memories should list the fact as number 1:\n%s", list)
	}
	if got := command(roomA, "!ada forget 1"); !strings.Contains(got, "Forgotten") || !strings.Contains(got, shortID(mems[0].ID)) || strings.Contains(got, "Miso") {
		t.Fatalf("!ada forget 1 names the memory by its short id and an excerpt, not in full: %q", got)
	}
	if got := bot.roomMemories(t, roomA); holding("Miso")(got) {
		t.Fatalf("the memory is still there: %v", memoryTexts(got))
	}
	if got := command(roomA, "!ada why"); strings.Contains(got, "Miso") {
		t.Errorf("!ada why still quotes the forgotten memory:\n%s", got)
	}
	ask(roomA, "ada, tell me about my cat")
	if p := lastPrompt(t, llm); strings.Contains(p, "Miso") {
		t.Fatalf("a forgotten memory reached the model:\n%s", p)
	}

	// A redaction (sent in the clear, also in an encrypted room) takes the
	// memory its message made with it.
	// Ada's confirmation goes too (issue 27): it quoted the message.
	remember := m.Say(roomA, "!ada remember the spare key is under the blue pot")
	conf := m.Wait("remember reply", bottest.ReplyTo(botID, remember, event.MsgNotice))
	bot.waitMemories(t, roomA, "remembered", holding("blue pot"))
	if _, err := m.Client.RedactEvent(context.Background(), roomA, remember); err != nil {
		t.Fatal(err)
	}
	bot.waitMemories(t, roomA, "the memory goes with its redacted message", func(mems []core.Memory) bool { return !holding("blue pot")(mems) })
	m.Wait("Ada's confirmation is redacted with the command", bottest.RedactionOf(conf.ID))
}

// testRememberCommand: !ada remember stores a memory for the room, named
// after the member, and says what it stored; the model sees it.
func (f *roomsFixture) testRememberCommand(t *testing.T) {
	room := f.groupRoom(t, "remember")
	got := f.command(t, f.bob, room, "!ada remember The Build Server is at 10.0.0.7")
	if !strings.Contains(got, "Remembered for this room") || !strings.Contains(got, "The Build Server…") || strings.Contains(got, "10.0.0.7") {
		t.Fatalf("!ada remember: %q", got)
	}
	mems := f.bot.roomMemories(t, room)
	if len(mems) != 1 || mems[0].Meta.UserID != f.bob.Client.UserID.String() {
		t.Fatalf("one memory by bob expected, got %+v", mems)
	}
	if got := f.command(t, f.bob, room, "!ada remember"); !strings.Contains(got, "Usage") {
		t.Errorf("remember without text: %q", got)
	}
	f.ask(t, f.bob, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, where is the build server?"})
	if p := lastPrompt(t, f.llm); !strings.Contains(p, "10.0.0.7") {
		t.Errorf("the remembered fact did not reach the model:\n%s", p)
	}
	// An id from another room is never deleted from this one.
	elsewhere, err := f.bot.svc.CreateMemory(context.Background(), core.MemoryInput{Text: "another room's secret", Entity: "!other:localhost"})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.command(t, f.bob, room, "!ada forget "+elsewhere.ID); !strings.Contains(got, "has no memory") {
		t.Errorf("forget with another room's memory id: %q", got)
	}
	if _, err := f.bot.svc.GetMemory(context.Background(), elsewhere.ID); err != nil {
		t.Errorf("another room's memory was deleted from here: %v", err)
	}
	if got := f.command(t, f.bob, room, "!ada forget all"); !strings.Contains(got, "Only room moderators") {
		t.Errorf("forget all by a non-moderator: %q", got)
	}
	if got := f.command(t, f.alice, room, "!ada forget all"); !strings.Contains(got, "Forgot the one memory") || strings.Contains(got, "memories") {
		t.Errorf("forget all by a moderator: %q", got)
	}
	// Issue 40 item 15: a number means one of the member's own last
	// listing; with none shown (forget all drops them), nothing is guessed.
	if got := f.command(t, f.alice, room, "!ada forget 7"); !strings.Contains(got, "not shown you a numbered list") {
		t.Errorf("forget a number before any listing: %q", got)
	}
}

// testPrivacyMemory: in privacy mode !ada remember is refused and no
// extraction request is made for the room's exchanges.
func (f *roomsFixture) testPrivacyMemory(t *testing.T) {
	room := f.groupRoom(t, "private memory")
	if got := f.command(t, f.alice, room, "!ada privacy off"); !strings.Contains(got, "I store nothing from this room now") {
		t.Fatalf("privacy off: %q", got)
	}
	if got := f.command(t, f.alice, room, "!ada remember my PIN is 1234"); !strings.Contains(got, "can't remember") || !strings.Contains(got, "I store nothing from this room") {
		t.Errorf("remember in privacy mode must be refused plainly: %q", got)
	}
	before := len(f.llm.FormattedRequests())
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, my dog is called Rex"})
	// A second exchange makes sure a late extraction of the first would
	// have been requested by now (the room's jobs run in order).
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, and my bird?"})
	if after := len(f.llm.FormattedRequests()); after != before {
		t.Errorf("privacy mode made %d extraction requests", after-before)
	}
	if got := f.bot.roomMemories(t, room); len(got) != 0 {
		t.Errorf("privacy mode stored memories: %v", memoryTexts(got))
	}
}

// testRedactionCascades: redacting the message that told Ada a fact deletes
// the stored message, its turns and the memory learned only from it, whose
// history says why; redacting a `!ada remember` deletes that memory.
func (f *roomsFixture) testRedactionCascades(t *testing.T) {
	room := f.groupRoom(t, "redaction")
	extractFacts(t, f.llm, map[string]string{"my bike is blue": "member-alice's bike is blue"})
	asked, _ := f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, my bike is blue"})
	mem := f.bot.waitMemories(t, room, "the bike fact is learned", holding("bike is blue"))[0]
	turns := f.bot.count(`SELECT count(*) FROM documents WHERE room_id = ? AND type = 'turn'`, room.String())
	if turns != 2 {
		t.Fatalf("want the exchange's 2 turns stored, got %d", turns)
	}
	ctx := context.Background()
	redacted := time.Now()
	if _, err := f.alice.Client.RedactEvent(ctx, room, asked); err != nil {
		t.Fatal(err)
	}
	f.bot.waitMemories(t, room, "the memory goes with the redacted message", func(m []core.Memory) bool { return !holding("bike is blue")(m) })
	t.Logf("the memory was gone %s after the redaction was sent", time.Since(redacted).Round(time.Millisecond))
	if n := f.bot.count(`SELECT count(*) FROM documents WHERE room_id = ? AND type = 'turn'`, room.String()); n != 0 {
		t.Errorf("the redacted exchange's turns are still stored: %d", n)
	}
	if n := f.bot.count(`SELECT count(*) FROM bridge_messages WHERE room_id = ? AND event_id = ?`, room.String(), asked.String()); n != 0 {
		t.Errorf("the redacted message's text is still stored")
	}
	hist, err := f.bot.svc.MemoryHistory(ctx, mem.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last := hist[len(hist)-1]; last.Event != core.HistoryDelete || !strings.Contains(last.Reason, "redacted") {
		t.Errorf("the memory's history should end with its deletion because of the redaction: %+v", last)
	}

	remember := f.alice.Say(room, "!ada remember the wifi password is hunter2")
	f.alice.Wait("remember reply", bottest.ReplyTo(f.botID, remember, event.MsgNotice))
	wifi := f.bot.waitMemories(t, room, "remembered", holding("hunter2"))[0]
	if _, err := f.alice.Client.RedactEvent(ctx, room, remember); err != nil {
		t.Fatal(err)
	}
	f.bot.waitMemories(t, room, "the remembered fact goes with its redacted command", func(m []core.Memory) bool { return !holding("hunter2")(m) })
	// Issue 26: its history says it went because of the redaction.
	if hist, err := f.bot.svc.MemoryHistory(ctx, wifi.ID); err != nil || !strings.Contains(hist[len(hist)-1].Reason, "redacted") || hist[len(hist)-1].Text != "" {
		t.Errorf("the remembered fact's history should end with the redaction, without its text: %+v %v", hist, err)
	}

	// The same fact told again refreshes the first memory; redacting the
	// second command must not take the memory the first one made.
	f.command(t, f.alice, room, "!ada remember the door code is 1357")
	again := f.alice.Say(room, "!ada remember the door code is 1357")
	if got := f.alice.Wait("second remember", bottest.ReplyTo(f.botID, again, event.MsgNotice)).Content.AsMessage().Body; !strings.Contains(got, "already knew") {
		t.Fatalf("the same fact again: %q", got)
	}
	if _, err := f.alice.Client.RedactEvent(ctx, room, again); err != nil {
		t.Fatal(err)
	}
	f.command(t, f.alice, room, "!ada status") // handled after the redaction: the room's work is in order
	if !holding("1357")(f.bot.roomMemories(t, room)) {
		t.Errorf("redacting the command that only refreshed a memory deleted it")
	}
}

// logLineWith reports whether one line of logs holds every part.
func logLineWith(logs string, parts ...string) bool {
	for _, line := range strings.Split(logs, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}
