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

// TestBridgeAnswersInThreads is issue 42's "Answers in threads" in rooms of
// three: with `replies thread` Ada starts a thread on the question (m.thread
// rooted at it, with the reply fallback Element expects) and answers
// there, streamed edits and the later parts of a long answer included; a
// follow-up in the thread has the thread's messages as its context, not the
// main timeline's; a redaction of the question takes back every event of
// the threaded answer; with `room` the answer is a plain reply, and a
// question asked in a thread is answered in it either way.
func TestBridgeAnswersInThreads(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	f := &roomsFixture{hs: hs, llm: llm, botID: acct.UserID}
	f.bot = startBot(t, botSettings(hs, llm, acct, t.TempDir(), func(s *botSetup) {
		s.MaxContextMessages = 10
		s.Stream = StreamOptions{On: false, Interval: 50 * time.Millisecond, MaxEdits: 50}
	}))
	f.alice = bottest.NewMember(t, hs, "alice", false)
	f.bob = bottest.NewMember(t, hs, "bob", false)
	// threadOn reports whether c is in the thread rooted at root, with the
	// fallback reply to it.
	threadOn := func(c *event.MessageEventContent, root id.EventID) bool {
		rel := c.RelatesTo
		return rel.GetThreadParent() == root && rel.GetReplyTo() == root && rel.IsFallingBack
	}
	threadRoom := func(t *testing.T, name string, stream string) id.RoomID {
		room := f.groupRoom(t, name)
		for _, c := range []string{"!ada set replies thread", "!ada set stream " + stream} {
			if got := f.command(t, f.alice, room, c); !strings.Contains(got, "✅") {
				t.Fatalf("%s: %q", c, got)
			}
		}
		return room
	}

	t.Run("ThreadedFollowUp", func(t *testing.T) {
		room := threadRoom(t, "threaded", "on")
		llm.Script(llmtest.Reply{Tokens: []string{"The ferry ", "leaves at nine. ", "Bring the blue tickets."}, ChunkDelay: 60 * time.Millisecond})
		asked, reply := f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, when does the ferry leave?"})
		if c := reply.Content.AsMessage(); !threadOn(c, asked) {
			t.Fatalf("want the answer in a thread on the question %s, got %+v", asked, c.RelatesTo)
		}
		final := f.alice.Wait("the final edit", func(e *event.Event) bool {
			nc := e.Content.AsMessage().NewContent
			return editsOf(reply.ID)(e) && nc != nil && strings.Contains(nc.Body, "blue tickets")
		})
		if nc := final.Content.AsMessage().NewContent; nc.RelatesTo != nil {
			t.Errorf("an edit's new content carries no relation, got %+v", nc.RelatesTo)
		}
		// Bob adds to the thread, someone chats in the main timeline, and
		// Alice follows up in the thread.
		inThread := func(body string) *event.MessageEventContent {
			c := &event.MessageEventContent{MsgType: event.MsgText, Body: body}
			c.RelatesTo = (&event.RelatesTo{}).SetThread(asked, reply.ID)
			return c
		}
		f.bob.Send(room, inThread("I have the blue tickets in my bag"))
		f.bob.Say(room, "meanwhile in the main room: the cat knocked over a plant")
		llm.Script(llmtest.Reply{Tokens: []string{"Bob has them."}})
		followUp, answer := f.ask(t, f.alice, room, inThread("Ada, who has the tickets?"))
		rel := answer.Content.AsMessage().RelatesTo
		if rel.GetThreadParent() != asked || rel.GetReplyTo() != followUp || rel.IsFallingBack {
			t.Errorf("want the follow-up answered in the thread %s as a reply to %s, got %+v", asked, followUp, rel)
		}
		reqs := llm.ChatRequests()
		prompt := fmtMessages(reqs[len(reqs)-1].Messages)
		for _, want := range []string{"when does the ferry leave?", "Bring the blue tickets.", "blue tickets in my bag"} {
			if !strings.Contains(prompt, want) {
				t.Errorf("the follow-up's prompt lacks the thread's %q:\n%s", want, prompt)
			}
		}
		if strings.Contains(prompt, "the cat knocked over a plant") {
			t.Errorf("the main timeline is not the thread's context:\n%s", prompt)
		}
		// Reactions stay on the question.
		f.alice.Wait("✅ on the question", bottest.ReactionTo(asked, reactDone))
	})

	t.Run("LongAnswerStaysInThread", func(t *testing.T) {
		room := threadRoom(t, "threaded long", "off")
		para := strings.Repeat("All work and no play makes a long answer. ", 40) + "\n\n"
		var tokens []string
		for i := 0; i < 30; i++ { // about 50 KB: several events
			tokens = append(tokens, fmt.Sprintf("Paragraph %d. %s", i, para))
		}
		asked, parts := f.askLong(t, room, "Ada, write a lot", tokens)
		for i, p := range parts {
			if c := p.Content.AsMessage(); !threadOn(c, asked) {
				t.Errorf("part %d is not in the thread on %s: %+v", i, asked, c.RelatesTo)
			}
		}
		// Taking the question back takes every part of the threaded answer.
		if _, err := f.alice.Client.RedactEvent(t.Context(), room, asked); err != nil {
			t.Fatal(err)
		}
		for i, p := range parts {
			f.alice.Wait(fmt.Sprintf("part %d redacted", i), func(r *event.Event) bool {
				return r.Sender == f.botID && bottest.RedactionOf(p.ID)(r)
			})
		}
	})

	t.Run("Encrypted", func(t *testing.T) {
		carol := bottest.NewMember(t, hs, "carol", true)
		dave := bottest.NewMember(t, hs, "dave", true)
		room := carol.CreateRoom(&mautrix.ReqCreateRoom{Name: "secret threads", InitialState: bottest.EncryptedRoom(),
			Invite: []id.UserID{dave.Client.UserID, f.botID}})
		dave.Join(room)
		carol.Wait("bot joins", bottest.MembershipOf(room, f.botID, event.MembershipJoin))
		carol.Wait("intro", bottest.MessageFrom(room, f.botID, event.MsgNotice))
		if got := f.command(t, carol, room, "!ada set replies thread"); !strings.Contains(got, "✅") {
			t.Fatalf("set replies thread: %q", got)
		}
		llm.Script(llmtest.Reply{Tokens: []string{"The safe word is pineapple."}})
		asked, reply := f.ask(t, carol, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, what is the safe word?"})
		if c := reply.Content.AsMessage(); !threadOn(c, asked) {
			t.Fatalf("want the answer in a thread on the question %s, got %+v", asked, c.RelatesTo)
		}
		q := &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, spell it backwards"}
		q.RelatesTo = (&event.RelatesTo{}).SetThread(asked, reply.ID)
		llm.Script(llmtest.Reply{Tokens: []string{"elppaenip"}})
		f.ask(t, dave, room, q)
		reqs := llm.ChatRequests()
		if prompt := fmtMessages(reqs[len(reqs)-1].Messages); !strings.Contains(prompt, "The safe word is pineapple.") {
			t.Errorf("the follow-up's prompt lacks the thread's answer:\n%s", prompt)
		}
	})

	t.Run("RoomRepliesInTimeline", func(t *testing.T) {
		room := f.groupRoom(t, "timeline")
		if got := f.command(t, f.alice, room, "!ada set replies room"); !strings.Contains(got, "✅") {
			t.Fatalf("set replies room: %q", got)
		}
		asked, reply := f.ask(t, f.alice, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, say hi"})
		if rel := reply.Content.AsMessage().RelatesTo; rel.Type != "" || rel.GetReplyTo() != asked {
			t.Errorf("replies room: want a plain reply to %s, got %+v", asked, rel)
		}
		// A question asked in a thread is answered in it, also with `room`.
		root := f.bob.Say(room, "a thread root")
		q := &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, in the thread?"}
		q.RelatesTo = (&event.RelatesTo{}).SetThread(root, root)
		asked, reply = f.ask(t, f.alice, room, q)
		if rel := reply.Content.AsMessage().RelatesTo; rel.GetThreadParent() != root || rel.GetReplyTo() != asked {
			t.Errorf("a question in a thread: want the answer in thread %s, got %+v", root, rel)
		}
		// Its edit is answered afresh, in the thread still.
		llm.Script(llmtest.Reply{Tokens: []string{"Still in the thread."}})
		edit(f.alice, room, asked, "Ada, still in the thread?")
		again := f.alice.Wait("the edited question answered", func(e *event.Event) bool {
			return bottest.ReplyTo(f.botID, asked, event.MsgText)(e) && strings.Contains(e.Content.AsMessage().Body, "Still in the thread")
		})
		if rel := again.Content.AsMessage().RelatesTo; rel.GetThreadParent() != root {
			t.Errorf("an edited question in a thread: want the answer in thread %s, got %+v", root, rel)
		}
	})
}
