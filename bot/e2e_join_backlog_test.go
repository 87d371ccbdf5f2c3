package bot

import (
	"context"
	"strings"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// isIntro matches Ada's introduction in room.
func isIntro(room id.RoomID, bot id.UserID) func(*event.Event) bool {
	return func(e *event.Event) bool {
		return bottest.MessageFrom(room, bot, event.MsgNotice)(e) && strings.Contains(e.Content.AsMessage().Body, "Hi, I'm")
	}
}

// answeredOrReacted matches anything Ada posted about target: a reply of
// any kind, or a reaction.
func answeredOrReacted(target id.EventID, botID id.UserID) func(*event.Event) bool {
	return func(e *event.Event) bool {
		if e.Sender != botID {
			return false
		}
		return bottest.AnyReactionTo(target)(e) || bottest.ReplyTo(botID, target, event.MsgText)(e) ||
			bottest.ReplyTo(botID, target, event.MsgNotice)(e)
	}
}

// TestBridgeJoinBacklog is issue 40 item 1 in a room of three: every event
// from before Ada's latest join is context at most. On her first invite
// she neither answers a question nor runs a `!ada remember` sent before
// it; after a kick and a re-invite she introduces herself again and
// replays nothing of the room's visible history: no answer again, no
// `!ada remember` or `!ada forget all` run again.
func TestBridgeJoinBacklog(t *testing.T) {
	f := newRoomsFixture(t)
	ctx := context.Background()
	room := f.alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "before Ada", Invite: []id.UserID{f.bob.Client.UserID}})
	f.bob.Join(room)
	early := f.alice.Say(room, "Ada, what is the capital of Peru?")
	earlyRemember := f.bob.Say(room, "!ada remember the door code is 5151")

	invite := func(what string) *event.Event {
		t.Helper()
		seen := map[id.EventID]bool{}
		for _, e := range f.alice.Find(isIntro(room, f.botID)) {
			seen[e.ID] = true
		}
		if _, err := f.alice.Client.InviteUser(ctx, room, &mautrix.ReqInviteUser{UserID: f.botID}); err != nil {
			t.Fatal(err)
		}
		return f.alice.Wait(what, func(e *event.Event) bool { return isIntro(room, f.botID)(e) && !seen[e.ID] })
	}
	invite("the intro on the first invite")
	// The room's work is in order: what came before the join was handled
	// before this command, and a question's answer line before the next.
	f.command(t, f.alice, room, "!ada status")
	f.llm.Script(llmtest.Reply{Tokens: []string{"Here now."}})
	f.ask(t, f.bob, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, are you here now?"})
	for what, ev := range map[string]id.EventID{"the question": early, "the remember": earlyRemember} {
		if got := f.alice.Find(answeredOrReacted(ev, f.botID)); len(got) != 0 {
			t.Errorf("%s sent before the invite got %d answers or reactions", what, len(got))
		}
	}
	if holding("5151")(f.bot.roomMemories(t, room)) {
		t.Errorf("a `!ada remember` sent before the invite was run")
	}
	if p := lastPrompt(t, f.llm); !strings.Contains(p, "capital of Peru") {
		t.Errorf("what was said before the invite is context:\n%s", p)
	}

	// A stay with a history: an answer, a memory forgotten by
	// `!ada forget all`, then one kept.
	f.command(t, f.bob, room, "!ada remember bob likes tea")
	f.command(t, f.alice, room, "!ada forget all")
	f.llm.Script(llmtest.Reply{Tokens: []string{"Lima."}})
	asked, _ := f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, and the capital of Peru?"})
	kept := f.command(t, f.bob, room, "!ada remember bob likes coffee")
	if !strings.Contains(kept, "Remembered") {
		t.Fatalf("remember: %q", kept)
	}
	f.command(t, f.alice, room, "!ada status") // alice has seen all of it
	history := map[string]id.EventID{"the answered question": asked}
	for _, e := range f.alice.Find(func(e *event.Event) bool {
		return e.RoomID == room && e.Type == event.EventMessage && strings.HasPrefix(e.Content.AsMessage().Body, "!ada ")
	}) {
		history[e.Content.AsMessage().Body] = e.ID
	}
	posted := map[id.EventID]int{}
	for _, ev := range history {
		posted[ev] = len(f.alice.Find(answeredOrReacted(ev, f.botID)))
	}
	answers := len(f.llm.ChatRequests())

	if _, err := f.alice.Client.KickUser(ctx, room, &mautrix.ReqKickUser{UserID: f.botID, Reason: "testing"}); err != nil {
		t.Fatal(err)
	}
	f.alice.Wait("Ada is out", bottest.MembershipOf(room, f.botID, event.MembershipLeave))
	invite("the intro again on the re-invite")
	f.command(t, f.alice, room, "!ada status")
	f.llm.Script(llmtest.Reply{Tokens: []string{"Back."}})
	f.ask(t, f.bob, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, are you back?"})

	for what, ev := range history {
		if got := len(f.alice.Find(answeredOrReacted(ev, f.botID))); got != posted[ev] {
			t.Errorf("%s was handled again after the re-invite: %d answers and reactions, %d before", what, got, posted[ev])
		}
	}
	if n := len(f.llm.ChatRequests()) - answers; n != 1 {
		t.Errorf("the model was asked %d times after the re-invite, want once (the live question)", n)
	}
	if mems := f.bot.roomMemories(t, room); !holding("coffee")(mems) || holding("tea")(mems) {
		t.Errorf("the history's commands were run again: memories %v", memoryTexts(mems))
	}
}
