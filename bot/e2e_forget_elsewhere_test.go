package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// forgetRelay is the core's ForgetListener as cmd/ada wires it: the
// bridge's tables, then the running bridge's memory.
type forgetRelay struct {
	bridge *storage.Bridge
	bot    *Bot // set before the bridge runs
}

func (r *forgetRelay) DocumentsForgotten(ctx context.Context, ids []string) error {
	return errors.Join(r.bridge.DocumentsForgotten(ctx, ids), r.bot.DocumentsForgotten(ctx, ids))
}

func (r *forgetRelay) PersonForgotten(ctx context.Context, userID, roomID string, at time.Time) error {
	return errors.Join(r.bridge.PersonForgotten(ctx, userID, roomID, at), r.bot.PersonForgotten(ctx, userID, roomID, at))
}

func (r *forgetRelay) RoomForgotten(ctx context.Context, roomID string) error {
	return errors.Join(r.bridge.RoomForgotten(ctx, roomID), r.bot.RoomForgotten(ctx, roomID))
}

// testForgottenElsewhere: a memory deleted, a member forgotten (in one
// room or everywhere) or a room forgotten, through another door than the bridge's commands
// (the API, MCP, the memory page: the same core calls) leaves nothing in
// the running bridge's memory:
// `!ada why` no longer quotes the memory, and the member's messages no
// longer reach the model as the room's recent messages.
func (f *roomsFixture) testForgottenElsewhere(t *testing.T) {
	ctx := context.Background()
	room := f.groupRoom(t, "forgotten elsewhere")
	extractFacts(t, f.llm, map[string]string{"my locker code is wibblesnortch": "member-alice's locker code is wibblesnortch"})
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, my locker code is wibblesnortch"})
	mems := f.bot.waitMemories(t, room, "the fact is learned", holding("wibblesnortch"))
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, what is my locker code?"})
	if why := f.command(t, f.alice, room, "!ada why"); !strings.Contains(why, "wibblesnortch") {
		t.Fatalf("the answer should have used the memory:\n%s", why)
	}
	if err := f.bot.svc.DeleteMemory(ctx, mems[0].ID); err != nil {
		t.Fatal(err)
	}
	if why := f.command(t, f.alice, room, "!ada why"); strings.Contains(why, "wibblesnortch") {
		t.Errorf("!ada why quotes the deleted memory:\n%s", why)
	}

	// Forgotten in this room only (entity=@bob&room_id=!room): the same.
	f.ask(t, f.bob, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, my bike lock code is zorblequack"})
	if _, err := f.bot.svc.Forget(ctx, core.ForgetRequest{Entity: f.bob.Client.UserID.String(), RoomID: room.String()}); err != nil {
		t.Fatal(err)
	}
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, what a grey day"})
	if p := lastPrompt(t, f.llm); strings.Contains(p, "zorblequack") {
		t.Errorf("the member forgotten in the room still has messages reaching the model:\n%s", p)
	}

	if _, err := f.bot.svc.Forget(ctx, core.ForgetRequest{Entity: f.alice.Client.UserID.String()}); err != nil {
		t.Fatal(err)
	}
	f.ask(t, f.bob, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, what a nice day"})
	if p := lastPrompt(t, f.llm); strings.Contains(p, "wibblesnortch") {
		t.Errorf("the forgotten member's messages still reach the model:\n%s", p)
	}

	// The whole room forgotten (entity=!room): none of its messages stay.
	if _, err := f.bot.svc.Forget(ctx, core.ForgetRequest{Entity: room.String()}); err != nil {
		t.Fatal(err)
	}
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, anything new?"})
	if p := lastPrompt(t, f.llm); strings.Contains(p, "what a nice day") {
		t.Errorf("the forgotten room's messages still reach the model:\n%s", p)
	}
}

// testForgottenAskerWhy: a member forgotten through another door takes
// their question out of `!ada why` even when the room's window has moved
// on past it (the window, not the last answer, bounds what is in memory).
func (f *roomsFixture) testForgottenAskerWhy(t *testing.T) {
	room := f.groupRoom(t, "forgotten asker")
	f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, is the quokka gate open?"})
	for i := range 6 { // more than the window's 5 messages
		f.bob.Say(room, fmt.Sprintf("chatter %d", i))
	}
	if why := f.command(t, f.bob, room, "!ada why"); !strings.Contains(why, "quokka") {
		t.Fatalf("!ada why should tell alice's question before the forget:\n%s", why)
	}
	if _, err := f.bot.svc.Forget(context.Background(), core.ForgetRequest{Entity: f.alice.Client.UserID.String()}); err != nil {
		t.Fatal(err)
	}
	if why := f.command(t, f.bob, room, "!ada why"); strings.Contains(why, "quokka") {
		t.Errorf("!ada why still quotes the forgotten member's question:\n%s", why)
	}
}
