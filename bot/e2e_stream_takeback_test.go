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
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestBridgeStreamTakeBack is issue 40 item 2 in a room of three, with
// STREAM_EDITS on: taking a streamed answer back takes every event of it,
// the reply, each of its edits, the continuation messages and Ada's
// reactions; a question redacted while its answer streams stops the model
// and gets nothing more.
func TestBridgeStreamTakeBack(t *testing.T) {
	f := newStreamRooms(t)
	llm, bot, ada, alice, bob := f.llm, f.bot, f.botID, f.alice, f.bob
	// takenBack waits until every event of the answer to asked that alice
	// saw is redacted: the reply, its edits, other messages and reactions.
	takenBack := func(t *testing.T, asked id.EventID, reply *event.Event, others ...*event.Event) {
		t.Helper()
		events := append([]*event.Event{reply}, others...)
		events = append(events, alice.Find(editsOf(reply.ID))...)
		events = append(events, alice.Find(func(e *event.Event) bool { return e.Sender == ada && bottest.AnyReactionTo(asked)(e) })...)
		f.waitRedacted(t, events)
		if len(events) < 3 { // the reply, an edit at least (waited for), 🧠
			t.Errorf("only %d events of the answer were seen; the test shows nothing", len(events))
		}
	}

	t.Run("QuestionRedactedMidStream", func(t *testing.T) {
		room := f.groupRoom(t, "redacted mid-stream")
		hold := make(chan struct{})
		defer close(hold)
		tokens := []string{"Your door code is 5151. ", "It opens ", "the front door", " and the shed."}
		llm.Script(llmtest.Reply{Tokens: tokens, Hold: hold, HoldAfter: 3, ChunkDelay: 80 * time.Millisecond})
		asked := alice.Say(room, "Ada, my door code is 5151, what does it open?")
		reply := alice.Wait("the first sentence", bottest.ReplyTo(ada, asked, event.MsgText))
		// Everything the model wrote before it was held is shown.
		alice.Wait("the edit showing what came before the hold", func(e *event.Event) bool {
			nc := e.Content.AsMessage().NewContent
			return editsOf(reply.ID)(e) && nc != nil && strings.Contains(nc.Body, "the front door")
		})
		alice.Wait("🧠", bottest.ReactionTo(asked, reactThinking))
		redaction, err := alice.Client.RedactEvent(context.Background(), room, asked)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), bottest.Timeout)
		defer cancel()
		if err := llm.WaitCancelled(ctx, 1); err != nil {
			t.Fatalf("the model was not stopped: %v", err)
		}
		takenBack(t, asked, reply)
		// The room's work is in order: anything more about the answer
		// would have come before this.
		status := bob.Say(room, "!ada status")
		alice.Wait("status", bottest.ReplyTo(ada, status, event.MsgNotice))
		all := alice.Find(func(*event.Event) bool { return true })
		after := bottest.IndexOf(all, func(e *event.Event) bool { return e.ID == redaction.EventID })
		for _, e := range all[after+1:] {
			if answeredOrReacted(asked, ada)(e) || e.Sender == ada && editsOf(reply.ID)(e) {
				t.Errorf("Ada posted after the question was redacted: %s", bottest.Describe(e))
			}
		}
		if n := bot.count(`SELECT count(*) FROM documents WHERE room_id = ? AND text LIKE '%5151%'`, room.String()); n != 0 {
			t.Errorf("%d stored documents quote the redacted question", n)
		}
	})

	t.Run("ForgetMeTakesTheWholeAnswer", func(t *testing.T) {
		room := f.groupRoom(t, "forget me, streamed")
		long := strings.Repeat("The locker is by the gym door, second row from the left. ", 240) // > one part
		llm.Script(llmtest.Reply{Tokens: []string{"Your locker code is 4417. ", "I will keep it ", "in mind.\n\n", long},
			ChunkDelay: 150 * time.Millisecond})
		asked := bob.Say(room, "Ada, my locker code is 4417")
		reply := alice.Wait("the first sentence", bottest.ReplyTo(ada, asked, event.MsgText))
		alice.Wait("✅", bottest.ReactionTo(asked, reactDone))
		if n := len(alice.Find(editsOf(reply.ID))); n < 2 {
			t.Fatalf("%d edits of the streamed reply; the test needs the answer streamed", n)
		}
		rest := alice.Find(func(e *event.Event) bool {
			c := e.Content.AsMessage()
			return bottest.MessageFrom(room, ada, event.MsgText)(e) && e.ID != reply.ID && c.RelatesTo.GetReplaceID() == ""
		})
		if len(rest) == 0 {
			t.Fatalf("the long answer has no continuation message")
		}
		forget := bob.Say(room, "!ada forget me")
		got := bob.Wait("forget me", bottest.ReplyTo(ada, forget, event.MsgNotice)).Content.AsMessage().Body
		takenBack(t, asked, reply, rest...)
		if want := fmt.Sprintf("%d of my replies", 1+len(rest)); !strings.Contains(got, want) {
			t.Errorf("forget me = %q, want %q: the messages count, not the edits and reactions", got, want)
		}
	})
}

// newStreamRooms starts a bridge that streams its answers in edits (every
// 50 ms, up to 50), with alice and bob to make rooms of three.
func newStreamRooms(t *testing.T) *roomsFixture {
	f, _ := startRooms(t, func(s *botSetup) {
		s.Stream = StreamOptions{On: true, Interval: 50 * time.Millisecond, MaxEdits: 50}
	})
	return f
}

// waitRedacted waits until alice sees each of the bot's events redacted by
// the bot.
func (f *roomsFixture) waitRedacted(t *testing.T, events []*event.Event) {
	t.Helper()
	for _, e := range events {
		f.alice.Wait("Ada's "+e.Type.Type+" "+e.ID.String()+" is redacted", func(r *event.Event) bool {
			return r.Sender == f.botID && bottest.RedactionOf(e.ID)(r)
		})
	}
}
