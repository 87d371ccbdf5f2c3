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

// TestBridgeRoomSettings is issue 24's acceptance on a real homeserver: a
// moderator sets the room's model, instructions, replies, memory and
// context; the next answer follows them and a non-moderator cannot change
// them; they survive a restart. Quotas: a member's third question in an
// hour gets one notice and no model call, another member is still
// answered, an exempt moderator too.
func TestBridgeRoomSettings(t *testing.T) {
	f, setup := startRooms(t, func(s *botSetup) {
		s.DefaultModel, s.RoomModels = llmtest.ModelName, []string{"big-model"}
		s.MaxContextMessages = 5
		s.Quotas = Quotas{MemberAnswersPerHour: 2, ExemptModerators: true}
	})
	hs, llm := f.hs, f.llm
	room := f.groupRoom(t, "settings")

	if got := f.command(t, f.bob, room, "!ada set model big-model"); !strings.Contains(got, "Only room moderators") {
		t.Errorf("a non-moderator's set must be refused: %q", got)
	}
	if got := f.command(t, f.alice, room, "!ada set model tiny-model"); !strings.Contains(got, "`big-model`") || !strings.Contains(got, "`"+llmtest.ModelName+"`") || !strings.Contains(got, "Nothing changed") {
		t.Errorf("a model not allowed must be refused with the allowed ones: %q", got)
	}
	if got := f.command(t, f.alice, room, "!ada set context 6"); !strings.Contains(got, "0 to 5") {
		t.Errorf("context over MAX_CONTEXT_MESSAGES must be refused: %q", got)
	}
	for _, c := range []string{"!ada set model big-model", "!ada set instructions Answer like a Pirate, always.",
		"!ada set replies room", "!ada set memory manual", "!ada set context 1"} {
		if got := f.command(t, f.alice, room, c); !strings.Contains(got, "✅") {
			t.Errorf("%s: %q", c, got)
		}
	}
	// Issue 40 item 15: status names the model that answers here.
	if got := f.command(t, f.bob, room, "!ada status"); !strings.Contains(got, "Model in this room: big-model") {
		t.Errorf("status lacks the room's model: %q", got)
	}

	f.bob.Say(room, "an older message beyond the room's context")
	root := f.alice.Say(room, "a thread root")
	extractions := len(llm.FormattedRequests())
	q := &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, ahoy in the thread?"}
	q.RelatesTo = (&event.RelatesTo{}).SetThread(root, root)
	asked, reply := f.ask(t, f.alice, room, q)
	reqs := llm.ChatRequests()
	last := reqs[len(reqs)-1]
	prompt := fmtMessages(last.Messages)
	if last.Model != "big-model" {
		t.Errorf("the answer should come from the room's model, got %q", last.Model)
	}
	if !strings.Contains(prompt, "Answer like a Pirate, always.") {
		t.Errorf("the prompt should hold the room's instructions:\n%s", prompt)
	}
	if strings.Contains(prompt, "older message beyond") || !strings.Contains(prompt, "a thread root") {
		t.Errorf("context 1 should give only the latest message:\n%s", prompt)
	}
	if rel := reply.Content.AsMessage().RelatesTo; rel.GetThreadParent() != root || rel.GetReplyTo() != asked {
		t.Errorf("replies room: a question in a thread is answered in it; want a reply to %s in thread %s, got %+v", asked, root, rel)
	}
	// A second exchange makes sure a late extraction of the first would
	// have been requested by now (the room's jobs run in order).
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, and again"})
	if n := len(llm.FormattedRequests()) - extractions; n != 0 {
		t.Errorf("memory manual made %d extraction requests", n)
	}
	if got := f.command(t, f.alice, room, "!ada help"); !strings.Contains(got, "`replies` (thread|room)") || !strings.Contains(got, "!ada set <name> <value>") {
		t.Errorf("help should list the room settings: %q", got)
	}

	// Quotas: bob's two answers of the hour, then one notice and silence.
	quotaRoom := f.groupRoom(t, "quota")
	for _, text := range []string{"Ada, one", "Ada, two"} {
		f.ask(t, f.bob, quotaRoom, &event.MessageEventContent{MsgType: event.MsgText, Body: text})
	}
	calls := len(llm.ChatRequests())
	third := f.bob.Say(quotaRoom, "Ada, three")
	notice := f.bob.Wait("quota notice", bottest.ReplyTo(f.botID, third, event.MsgNotice)).Content.AsMessage().Body
	if !strings.Contains(notice, "quota of 2 answers an hour") || !strings.Contains(notice, "UTC (in ") {
		t.Errorf("the quota notice should say which quota and when it resets: %q", notice)
	}
	fourth := f.bob.Say(quotaRoom, "Ada, four")
	// alice is a moderator, exempt: she is answered, after bob's fourth
	// question was handled (the room's jobs run in order).
	f.ask(t, f.alice, quotaRoom, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, as moderator"})
	if n := len(llm.ChatRequests()) - calls; n != 1 {
		t.Errorf("want only the moderator's question to reach the model, got %d calls", n)
	}
	for _, ev := range []id.EventID{third, fourth} {
		if got := f.bob.Find(bottest.AnyReactionTo(ev)); len(got) > 0 {
			t.Errorf("a question over quota got a reaction: %s", bottest.Describe(got[0]))
		}
	}
	if got := f.bob.Find(bottest.ReplyTo(f.botID, fourth, event.MsgNotice)); len(got) > 0 {
		t.Errorf("the quota notice was repeated: %s", bottest.Describe(got[0]))
	}
	carol := bottest.NewMember(t, hs, "carol", false)
	if _, err := f.alice.Client.InviteUser(t.Context(), quotaRoom, &mautrix.ReqInviteUser{UserID: carol.Client.UserID}); err != nil {
		t.Fatal(err)
	}
	carol.Join(quotaRoom)
	f.ask(t, carol, quotaRoom, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, another member"})
	// The model provider's own rate limit is a plain notice, and the
	// question it refused does not count.
	f.llm.Script(llmtest.Reply{Status: 429, Error: "slow down"})
	limited := carol.Say(quotaRoom, "Ada, are you rate limited?")
	carol.Wait("❌ on the rate-limited question", bottest.ReactionTo(limited, reactFailed))
	if got := carol.Wait("rate limit notice", bottest.ReplyTo(f.botID, limited, event.MsgNotice)).Content.AsMessage().Body; !strings.Contains(got, "rate-limiting") || !strings.Contains(got, "try again") {
		t.Errorf("a 429 of the model should be a plain notice: %q", got)
	}
	got := f.command(t, f.bob, quotaRoom, "!ada status")
	if !strings.Contains(got, "4 answers in the last hour") || strings.Contains(got, " 0 model tokens") {
		t.Errorf("status should show the room's use, answers and the model's tokens: %q", got)
	}

	checkReplyChain(t, f)

	// After a restart the settings and the counts are still there.
	f.bot.stop()
	f.bot = startBot(t, setup)
	got = f.command(t, f.bob, room, "!ada settings")
	for _, want := range []string{"`model`: `big-model` (set in this room)", "Answer like a Pirate, always.", "`replies`: `room` (set in this room)",
		"`memory`: `manual` (set in this room)", "`context`: `1` (set in this room)"} {
		if !strings.Contains(got, want) {
			t.Errorf("settings after a restart lack %q:\n%s", want, got)
		}
	}
	calls = len(llm.ChatRequests())
	fifth := f.bob.Say(quotaRoom, "Ada, five")
	f.bob.Wait("quota notice after the restart", bottest.ReplyTo(f.botID, fifth, event.MsgNotice))
	if n := len(llm.ChatRequests()) - calls; n != 0 {
		t.Errorf("the quota must hold across a restart; %d model calls", n)
	}
	if got := f.command(t, f.alice, room, "!ada unset model"); !strings.Contains(got, "back to the bridge default") {
		t.Errorf("unset: %q", got)
	}

	// Leaving the room takes its settings and counts with it.
	if f.bot.count(`SELECT count(*) FROM bridge_usage WHERE room_id = ?`, room.String()) == 0 {
		t.Fatal("the room's answers were not counted")
	}
	if _, err := f.alice.Client.KickUser(t.Context(), room, &mautrix.ReqKickUser{UserID: f.botID}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(bottest.Timeout)
	for f.bot.count(`SELECT (SELECT count(*) FROM bridge_room_settings WHERE room_id = ?1) + (SELECT count(*) FROM bridge_usage WHERE room_id = ?1)`, room.String()) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the room's settings and counts outlived the bot's leaving")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkReplyChain: a reply to a message sent before Ada joined, and older
// than the room's window, brings it into the prompt (fetched from the
// homeserver); so does a reply to Ada's answer to it, through the chain.
func checkReplyChain(t *testing.T, f *roomsFixture) {
	room := f.alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "history", Invite: []id.UserID{f.bob.Client.UserID}})
	f.bob.Join(room)
	old := f.bob.Say(room, "the code word is marmalade")
	for i := range 6 { // more than MAX_CONTEXT_MESSAGES
		f.bob.Say(room, fmt.Sprintf("filler number %d", i))
	}
	if _, err := f.alice.Client.InviteUser(t.Context(), room, &mautrix.ReqInviteUser{UserID: f.botID}); err != nil {
		t.Fatal(err)
	}
	f.alice.Wait("bot joins history", bottest.MembershipOf(room, f.botID, event.MembershipJoin))
	f.alice.Wait("intro in history", bottest.MessageFrom(room, f.botID, event.MsgNotice))

	q := &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, what does this mean?"}
	q.RelatesTo = (&event.RelatesTo{}).SetReplyTo(old)
	_, answer := f.ask(t, f.alice, room, q)
	chainHas := func(what, want string) {
		t.Helper()
		p := lastPrompt(t, f.llm)
		i := strings.Index(p, "## Messages this one replies to")
		if i < 0 || !strings.Contains(p[i:], want) {
			t.Errorf("%s: the reply chain should hold %q:\n%s", what, want, p)
		}
	}
	chainHas("a reply to an old message", "bob: the code word is marmalade")
	if strings.Contains(lastPrompt(t, f.llm), "filler number 0") {
		t.Errorf("the message older than the window came along otherwise than by the chain")
	}

	q = &event.MessageEventContent{MsgType: event.MsgText, Body: "and in French?"}
	q.RelatesTo = (&event.RelatesTo{}).SetReplyTo(answer.ID)
	f.ask(t, f.alice, room, q)
	chainHas("a reply to Ada's answer", "the code word is marmalade")
}
