package bot

import (
	"context"
	"testing"

	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestBridgeSignsBeforeASlot (issue 16): with every answer slot taken
// (BOT_WORKERS=1, the model holding the first answer), a question in
// another room still gets its 🧠 and its typing notice at once, and waits
// for the slot with them showing; it is answered once the slot is free.
func TestBridgeSignsBeforeASlot(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	startBot(t, botSettings(hs, llm, acct, t.TempDir(), func(s *botSetup) { s.Workers, s.SendIntro = 1, false }))
	alice := bottest.NewMember(t, hs, "alice", false)
	busy, waiting := dmWith(alice, acct.UserID), dmWith(alice, acct.UserID)

	hold := make(chan struct{})
	llm.Script(llmtest.Reply{Tokens: []string{"the held answer"}, Hold: hold}, llmtest.Reply{Tokens: []string{"the second answer"}})
	ctx := context.Background()
	before := llm.Count()
	first := alice.Say(busy, "a slow question")
	if err := llm.WaitRequests(ctx, before+1); err != nil { // the only slot is taken
		t.Fatal(err)
	}
	second := alice.Say(waiting, "a question in another room")
	alice.Wait("🧠 while waiting for a slot", bottest.ReactionTo(second, reactThinking))
	alice.Wait("typing while waiting for a slot", bottest.Typing(waiting, acct.UserID))
	if n := llm.Count(); n != before+1 {
		t.Fatalf("the model got %d requests while the only slot was taken, want 1", n-before)
	}

	close(hold)
	for ev, room := range map[string]string{"the held answer": first.String(), "the second answer": second.String()} {
		reply := alice.Wait("reply "+ev, func(e *event.Event) bool {
			return e.Sender == acct.UserID && e.Content.AsMessage().RelatesTo.GetReplyTo().String() == room
		})
		if got := reply.Content.AsMessage().Body; got != ev {
			t.Errorf("got %q, want %q", got, ev)
		}
	}
}
