package bot

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestBridgeTakingBack is issue 27's items 4, 5 and 8 on a real homeserver:
// what members take back (a redaction, an edit, a forget) leaves nothing of
// it in the room or the store.
func TestBridgeTakingBack(t *testing.T) {
	f := newRoomsFixture(t)
	t.Run("RedactionTakesAdasReplies", f.testRedactionTakesAdasReplies)
	t.Run("Edits", f.testEdits)
	t.Run("ForgetByNumberAndID", f.testForgetByNumberAndID)
	t.Run("ForgetMe", f.testForgetMe)
	t.Run("TakenName", f.testTakenName)
	t.Run("ForgetMeTakesCorrectedWords", f.testForgetMeTakesCorrectedWords)
	t.Run("RememberAboutAnother", f.testRememberAboutAnother)
	t.Run("ListingNamesTold", f.testListingNamesTold)
	t.Run("ForgottenElsewhere", f.testForgottenElsewhere)
	t.Run("ForgottenAskerWhy", f.testForgottenAskerWhy)
	t.Run("ForgottenRepliedTo", f.testForgottenRepliedTo)
	t.Run("ForgetMeStampedAhead", f.testForgetMeStampedAhead)
}

// testTakenName is issue 36 items 3 and 4 in a room of three members:
// mallory takes bob's name. A fact told about "member-bob" then is no
// one's (the name is shared), so mallory gains nothing of bob's, and
// bob's `!ada forget me` still takes the facts resolved to him before;
// mallory's `!ada remember` is stored under her user id. `!ada forget
// <n>` follows core's rule: bob may forget what alice told about him,
// mallory may not.
func (f *roomsFixture) testTakenName(t *testing.T) {
	ctx := context.Background()
	room := f.groupRoom(t, "taken name")
	bob := f.bob.Client.UserID.String()
	extractFacts(t, f.llm, map[string]string{"bob's car is blue": "member-bob's car is blue",
		"bob's hat is green": "member-bob's hat is green", "bob's bike is red": "member-bob's bike is red"})
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, bob's car is blue"})
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, bob's hat is green"})
	f.bot.waitMemories(t, room, "the facts about bob", func(m []core.Memory) bool { return holding("car")(m) && holding("hat")(m) })

	mallory := f.joinAs(t, room, "member-mallory", "member-bob")
	f.ask(t, mallory, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, hello everyone"})
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, bob's bike is red"})
	mems := f.bot.waitMemories(t, room, "the bike", holding("bike"))
	for _, m := range mems {
		want := bob
		if strings.Contains(m.Text, "bike") {
			want = "" // "member-bob" is bob's and mallory's name now
		}
		if m.Meta.SubjectUserID != want {
			t.Errorf("%q: subject %q, want %q", m.Text, m.Meta.SubjectUserID, want)
		}
	}

	// What the page's member view and export give mallory (core's rule):
	// nothing of the facts about bob, and no right to rewrite them.
	exp, err := f.bot.svc.ExportMember(ctx, mallory.Client.UserID.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Memories) != 0 {
		t.Errorf("mallory's export holds %d memories about others", len(exp.Memories))
	}
	as := core.Actor{UserID: mallory.Client.UserID.String(), Rooms: []string{room.String()}}
	for _, m := range mems {
		if as.MayEdit(m.Access()) || as.MayForget(m.Access()) {
			t.Errorf("mallory may change %q", m.Text)
		}
	}

	shortOf := func(text string) string {
		for _, m := range f.bot.roomMemories(t, room) {
			if strings.Contains(m.Text, text) {
				return shortID(m.ID)
			}
		}
		t.Fatalf("no memory holds %q", text)
		return ""
	}
	if got := f.command(t, mallory, room, "!ada forget "+shortOf("car")); !strings.Contains(got, "another member") {
		t.Errorf("mallory forgetting alice's fact about bob: %q", got)
	}
	if got := f.command(t, f.bob, room, "!ada forget "+shortOf("car")); !strings.Contains(got, "Forgotten") {
		t.Errorf("bob forgetting alice's fact about him: %q", got)
	}

	f.command(t, mallory, room, "!ada remember I am the real bob")
	for _, m := range f.bot.waitMemories(t, room, "mallory's memory", holding("real bob")) {
		if strings.Contains(m.Text, "real bob") && (m.Meta.UserID != mallory.Client.UserID.String() ||
			!strings.Contains(m.Text, mallory.Client.UserID.String())) {
			t.Errorf("mallory's remember must carry her user id: %q told by %q", m.Text, m.Meta.UserID)
		}
	}

	f.command(t, f.bob, room, "!ada forget me")
	if mems := f.bot.roomMemories(t, room); holding("hat")(mems) || !holding("bike")(mems) || !holding("real bob")(mems) {
		t.Errorf("bob's forget me takes the facts about him, not the others: %v", memoryTexts(mems))
	}
}

// testRedactionTakesAdasReplies (item 4): after a member redacts a secret,
// Ada's answer to it and her `remember` confirmation are redacted too, and
// her confirmations never quote the secret in full.
func (f *roomsFixture) testRedactionTakesAdasReplies(t *testing.T) {
	room := f.groupRoom(t, "redacted secret")
	ctx := context.Background()
	f.llm.Script(llmtest.Reply{Tokens: []string{"Noted: your locker code is 4417."}})
	asked, reply := f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "hey assistant, my locker code is 4417"})
	if _, err := f.alice.Client.RedactEvent(ctx, room, asked); err != nil {
		t.Fatal(err)
	}
	f.alice.Wait("Ada's answer quoting the redacted question is redacted", bottest.RedactionOf(reply.ID))
	if n := f.bot.count(`SELECT count(*) FROM bridge_messages WHERE room_id = ? AND text LIKE '%4417%'`, room.String()); n != 0 {
		t.Errorf("the room's context still holds the secret %d times", n)
	}

	remember := f.alice.Say(room, "!ada remember my locker code is 4417")
	conf := f.alice.Wait("remember reply", bottest.ReplyTo(f.botID, remember, event.MsgNotice))
	if body := conf.Content.AsMessage().Body; strings.Contains(body, "4417") || !strings.Contains(body, "Remembered") {
		t.Errorf("the confirmation must not echo the secret in full: %q", body)
	}
	if _, err := f.alice.Client.RedactEvent(ctx, room, remember); err != nil {
		t.Fatal(err)
	}
	f.alice.Wait("the remember confirmation is redacted", bottest.RedactionOf(conf.ID))
	f.bot.waitMemories(t, room, "the memory goes with its command", func(m []core.Memory) bool { return !holding("4417")(m) })

	f.command(t, f.alice, room, "!ada remember the safe code is 2024")
	list := f.command(t, f.alice, room, "!ada memories")
	if !strings.Contains(list, "2024") {
		t.Fatalf("the listing shows what the member asks for: %q", list)
	}
	if got := f.command(t, f.alice, room, "!ada forget 1"); strings.Contains(got, "2024") || !strings.Contains(got, "Forgotten") {
		t.Errorf("the forget confirmation must not echo the secret in full: %q", got)
	}
}

// edit sends an m.replace of original with the new text.
func edit(m *bottest.Member, room id.RoomID, original id.EventID, text string) id.EventID {
	c := &event.MessageEventContent{MsgType: event.MsgText, Body: text}
	c.SetEdit(original) // m.new_content is a copy of c as it is now
	c.Body = "* " + text
	return m.Send(room, c)
}

// testEdits (item 5): an edit that newly addresses Ada is answered once,
// as a reply to the original; an edit of an answered message undoes what
// came from the old text (its turns, its memory, Ada's reply) and handles
// the new text, which is stored and learned from instead.
func (f *roomsFixture) testEdits(t *testing.T) {
	room := f.groupRoom(t, "edits")
	extractFacts(t, f.llm, map[string]string{"my dog is Rex": "member-alice's dog is Rex", "my dog is Max": "member-alice's dog is Max"})

	plain := f.alice.Say(room, "lunch at noon?")
	f.command(t, f.alice, room, "!ada status") // the plain message was handled: the room's work is in order
	f.llm.Script(llmtest.Reply{Tokens: []string{"Noon works."}})
	edit(f.alice, room, plain, "hey assistant, lunch at noon?")
	f.alice.Wait("the edit that addresses Ada is answered, as a reply to the original", bottest.ReplyTo(f.botID, plain, event.MsgText))
	f.alice.Wait("✅ on the original", bottest.ReactionTo(plain, reactDone))
	if p := lastPrompt(t, f.llm); !strings.Contains(p, "lunch at noon?") || strings.Contains(p, "* hey") {
		t.Errorf("the model must get the edited text, not the fallback:\n%s", p)
	}
	f.command(t, f.alice, room, "!ada status") // anything more about the edit would have come before this
	if n := len(f.alice.Find(bottest.ReplyTo(f.botID, plain, event.MsgText))); n != 1 {
		t.Errorf("the edit must be answered once, got %d answers", n)
	}

	f.llm.Script(llmtest.Reply{Tokens: []string{"Rex is a fine name."}})
	asked, reply := f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "hey assistant, my dog is Rex"})
	f.bot.waitMemories(t, room, "Rex is learned", holding("dog is Rex"))
	// Issue 40 item 13: the old answer's reactions are taken back with it
	// (a homeserver may refuse a second identical one from Ada).
	oldReactions := append(f.alice.Find(bottest.ReactionTo(asked, reactThinking)), f.alice.Find(bottest.ReactionTo(asked, reactDone))...)
	f.llm.Script(llmtest.Reply{Tokens: []string{"Max is a fine name."}})
	edit(f.alice, room, asked, "hey assistant, my dog is Max")
	f.alice.Wait("the answer to the old text is redacted", bottest.RedactionOf(reply.ID))
	maxReply := f.alice.Wait("the new text is answered", func(e *event.Event) bool {
		return bottest.ReplyTo(f.botID, asked, event.MsgText)(e) && e.ID != reply.ID
	})
	for _, r := range oldReactions {
		f.alice.Wait("Ada's old reaction "+r.Content.AsReaction().RelatesTo.Key+" is redacted", bottest.RedactionOf(r.ID))
	}
	if len(oldReactions) != 2 {
		t.Errorf("Ada's reactions to the answered question: %d, want 🧠 and ✅", len(oldReactions))
	}
	f.alice.Wait("a new ✅ on the edited question", func(e *event.Event) bool {
		return bottest.ReactionTo(asked, reactDone)(e) && (len(oldReactions) == 0 || e.ID != oldReactions[len(oldReactions)-1].ID)
	})
	mems := f.bot.waitMemories(t, room, "Max replaces Rex", func(m []core.Memory) bool { return holding("dog is Max")(m) && !holding("dog is Rex")(m) })
	t.Logf("memories after the edit: %v", memoryTexts(mems))
	var turns []string
	rows, err := f.bot.reader().Query(`SELECT text FROM documents WHERE room_id = ? AND type = 'turn'`, room.String())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		turns = append(turns, s)
	}
	if all := strings.Join(turns, "\n"); strings.Contains(all, "Rex") || !strings.Contains(all, "my dog is Max") {
		t.Errorf("the stored turns must hold the edited text only:\n%s", all)
	}
	if n := f.bot.count(`SELECT count(*) FROM bridge_messages WHERE room_id = ? AND text LIKE '%Rex%'`, room.String()); n != 0 {
		t.Errorf("the room's context still holds the old text %d times", n)
	}

	// Only the sender's own edit counts: bob's m.replace of alice's message
	// undoes nothing of hers and is not answered.
	edit(f.bob, room, asked, "hey assistant, my dog is Spot")
	f.command(t, f.alice, room, "!ada status") // the edit was handled before this
	if n := len(f.alice.Find(bottest.RedactionOf(maxReply.ID))); n != 0 {
		t.Error("another member's edit redacted Ada's answer")
	}
	if mems := f.bot.waitMemories(t, room, "alice's memory stays", holding("dog is Max")); holding("Spot")(mems) {
		t.Errorf("another member's edit was learned from: %v", memoryTexts(mems))
	}
	if n := len(f.alice.Find(bottest.ReplyTo(f.botID, asked, event.MsgText))); n != 2 {
		t.Errorf("another member's edit was answered: %d answers to the message, want the 2 before it", n)
	}
}

// testForgetByNumberAndID (item 8): a member's numbers are those of the
// listing they saw, whatever others list meanwhile; the listing shows short
// ids that forget accepts; forgetting a memory twice says it is gone. And
// (issue 26) a member may forget only their own memories, a moderator any.
func (f *roomsFixture) testForgetByNumberAndID(t *testing.T) {
	room := f.groupRoom(t, "forget by number")
	f.command(t, f.alice, room, "!ada remember the oldest fact")
	f.command(t, f.alice, room, "!ada remember the middle fact")
	aliceList := f.command(t, f.alice, room, "!ada memories") // 1. middle 2. oldest
	f.command(t, f.bob, room, "!ada remember the newest fact")
	f.command(t, f.bob, room, "!ada memories") // 1. newest 2. middle 3. oldest
	if got := f.command(t, f.alice, room, "!ada forget 2"); !strings.Contains(got, "Forgotten") || !strings.Contains(got, "oldest") {
		t.Fatalf("alice's number 2 is the oldest fact she saw: %q", got)
	}
	if got := f.command(t, f.alice, room, "!ada forget 2"); !strings.Contains(got, "already gone") {
		t.Errorf("a second forget of the same memory: %q", got)
	}

	short := regexp.MustCompile("`([0-9a-f]{8})`").FindAllStringSubmatch(aliceList, -1)
	if len(short) != 2 {
		t.Fatalf("the listing must show a short id beside each memory:\n%s", aliceList)
	}
	middle := short[0][1]
	// Issue 26: the middle fact is alice's; bob, no moderator, may not
	// forget it, and it stays.
	if got := f.command(t, f.bob, room, "!ada forget "+middle); !strings.Contains(got, "another member") {
		t.Fatalf("bob forgetting alice's memory should be refused: %q", got)
	}
	if !holding("middle")(f.bot.roomMemories(t, room)) {
		t.Fatalf("a refused forget deleted the memory")
	}
	if got := f.command(t, f.alice, room, "!ada forget "+middle); !strings.Contains(got, "Forgotten") || !strings.Contains(got, "middle") {
		t.Fatalf("forget by short id: %q", got)
	}
	if got := f.command(t, f.alice, room, "!ada forget "+middle); !strings.Contains(got, "already gone") {
		t.Errorf("a second forget by short id: %q", got)
	}
	if mems := memoryTexts(f.bot.roomMemories(t, room)); len(mems) != 1 || !strings.Contains(mems[0], "newest") {
		t.Errorf("only the newest fact should be left: %v", mems)
	}
	// bob forgets his own memory; alice, a moderator, anyone's.
	own := regexp.MustCompile("`([0-9a-f]{8})`").FindStringSubmatch(f.command(t, f.bob, room, "!ada remember bob's own fact"))
	if got := f.command(t, f.bob, room, "!ada forget "+own[1]); !strings.Contains(got, "Forgotten") {
		t.Errorf("bob forgetting his own memory: %q", got)
	}
	newest := regexp.MustCompile("`([0-9a-f]{8})`").FindStringSubmatch(f.command(t, f.bob, room, "!ada memories"))
	if got := f.command(t, f.alice, room, "!ada forget "+newest[1]); !strings.Contains(got, "Forgotten") || !strings.Contains(got, "newest") {
		t.Errorf("a moderator forgetting bob's memory: %q", got)
	}
	if mems := memoryTexts(f.bot.roomMemories(t, room)); len(mems) != 0 {
		t.Errorf("nothing should be left: %v", mems)
	}
}

// checkTakingBackEncrypted is items 4 and 5 in an encrypted room (a
// subtest of TestBridgeEncrypted): the edit arrives encrypted (m.new_content
// inside the ciphertext), Ada answers it encrypted, and a redaction of the
// question takes her answer.
// bob makes it a group room, not a direct chat where everything is answered.
func checkTakingBackEncrypted(t *testing.T, llm *llmtest.Server, alice, bob *bottest.Member, botID id.UserID) {
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "secret edits", InitialState: bottest.EncryptedRoom(),
		Invite: []id.UserID{bob.Client.UserID, botID}})
	bob.Join(room)
	alice.Wait("bot joins", bottest.MembershipOf(room, botID, event.MembershipJoin))
	alice.Wait("intro", bottest.MessageFrom(room, botID, event.MsgNotice))

	plain := alice.Say(room, "my locker code is 4417")
	status := alice.Say(room, "!ada status")
	alice.Wait("status: the plain message was handled", bottest.ReplyTo(botID, status, event.MsgNotice))
	llm.Script(llmtest.Reply{Tokens: []string{"Noted: 4417."}})
	edit(alice, room, plain, "Ada, my locker code is 4417")
	reply := alice.Wait("the encrypted edit is answered", bottest.ReplyTo(botID, plain, event.MsgText))
	if body := reply.Content.AsMessage().Body; body != "Noted: 4417." {
		t.Errorf("the edit's answer: %q", body)
	}
	if reply.Mautrix.EventSource&event.SourceDecrypted == 0 {
		t.Errorf("the answer to the edit was not encrypted")
	}
	if _, err := alice.Client.RedactEvent(context.Background(), room, plain); err != nil {
		t.Fatal(err)
	}
	alice.Wait("Ada's answer is redacted with the question", bottest.RedactionOf(reply.ID))
}
