package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestBridgeStreamStoppedByItsAsker: in a room of three, with STREAM_EDITS
// on, an edit of a question or `!ada forget me` by its author while its
// answer streams stops that answer as a redaction of the question does: the
// model stops, every event of the partial answer is taken back, and nothing
// more is posted for the old question; an edited question is then answered
// afresh.
func TestBridgeStreamStoppedByItsAsker(t *testing.T) {
	f := newStreamRooms(t)
	llm, ada, alice, bob := f.llm, f.botID, f.alice, f.bob
	cancelled := 0

	// streaming asks the question as asker and waits until its answer is
	// shown in part and held: the model has more to write. It returns the
	// question, the reply, and every event of the answer seen so far.
	streaming := func(t *testing.T, asker *bottest.Member, room id.RoomID, question string) (id.EventID, *event.Event, []*event.Event) {
		t.Helper()
		hold := make(chan struct{})
		t.Cleanup(func() { close(hold) })
		llm.Script(llmtest.Reply{Tokens: []string{"Your code is 7723. ", "It opens ", "the back gate", " and more."},
			Hold: hold, HoldAfter: 3, ChunkDelay: 80 * time.Millisecond})
		asked := asker.Say(room, question)
		reply := alice.Wait("the first sentence", bottest.ReplyTo(ada, asked, event.MsgText))
		// Everything the model wrote before it was held is shown: in an
		// edit, or already in the reply when 🧠 came late.
		if !strings.Contains(reply.Content.AsMessage().Body, "the back gate") {
			alice.Wait("the edit showing what came before the hold", func(e *event.Event) bool {
				nc := e.Content.AsMessage().NewContent
				return editsOf(reply.ID)(e) && nc != nil && strings.Contains(nc.Body, "the back gate")
			})
		}
		alice.Wait("🧠", bottest.ReactionTo(asked, reactThinking))
		events := append([]*event.Event{reply}, alice.Find(editsOf(reply.ID))...)
		events = append(events, alice.Find(func(e *event.Event) bool { return e.Sender == ada && bottest.AnyReactionTo(asked)(e) })...)
		return asked, reply, events
	}
	// stopped waits until the model of the answer was stopped and each of
	// its events is redacted.
	stopped := func(t *testing.T, events []*event.Event) {
		t.Helper()
		cancelled++
		ctx, cancel := context.WithTimeout(context.Background(), bottest.Timeout)
		defer cancel()
		if err := llm.WaitCancelled(ctx, cancelled); err != nil {
			t.Fatalf("the model of the old answer was not stopped: %v", err)
		}
		f.waitRedacted(t, events)
	}

	t.Run("QuestionEdited", func(t *testing.T) {
		room := f.groupRoom(t, "edited mid-stream")
		asked, reply, events := streaming(t, alice, room, "Ada, my gate code is 7723, what does it open?")
		llm.Script(llmtest.Reply{Tokens: []string{"Fresh answer about the garden."}})
		edited := edit(alice, room, asked, "Ada, what grows in the garden?")
		stopped(t, events)
		alice.Wait("the edited question answered afresh", func(e *event.Event) bool {
			return bottest.ReplyTo(ada, asked, event.MsgText)(e) && strings.Contains(e.Content.AsMessage().Body, "Fresh answer")
		})
		alice.Wait("✅ for the new answer", bottest.ReactionTo(asked, reactDone))
		all := alice.Find(func(*event.Event) bool { return true })
		after := bottest.IndexOf(all, func(e *event.Event) bool { return e.ID == edited })
		for _, e := range all[after+1:] {
			if e.Sender == ada && editsOf(reply.ID)(e) {
				t.Errorf("Ada edited the old answer after its question was edited: %s", bottest.Describe(e))
			}
		}
	})

	t.Run("ForgetMe", func(t *testing.T) {
		room := f.groupRoom(t, "forget me mid-stream")
		asked, reply, events := streaming(t, bob, room, "Ada, my gate code is 7723, what does it open?")
		forget := bob.Say(room, "!ada forget me")
		bob.Wait("forget me", bottest.ReplyTo(ada, forget, event.MsgNotice))
		stopped(t, events)
		// The room's work is in order: anything more about the answer
		// would have come before this.
		status := alice.Say(room, "!ada status")
		alice.Wait("status", bottest.ReplyTo(ada, status, event.MsgNotice))
		all := alice.Find(func(*event.Event) bool { return true })
		after := bottest.IndexOf(all, func(e *event.Event) bool { return e.ID == forget })
		for _, e := range all[after+1:] {
			if answeredOrReacted(asked, ada)(e) || e.Sender == ada && editsOf(reply.ID)(e) {
				t.Errorf("Ada posted for the question after its author's forget me: %s", bottest.Describe(e))
			}
		}
	})
}
