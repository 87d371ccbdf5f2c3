package bot

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// TestBridgeElementCrypto reads Ada's streamed answers in encrypted rooms
// with Element's own stack (matrix-js-sdk and its Rust crypto,
// tools/elementclient), not only with mautrix: in a room of three and in a
// DM, the first post, every edit, the final text and her reactions decrypt
// (at the latest when their key comes); an answer taken back (its question redacted while it
// streams, or `!ada forget me`) leaves nothing of it readable there, and
// nothing more is posted after the redaction.
func TestBridgeElementCrypto(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	el := bottest.StartElement(t, hs, "elena") // first: without node it skips before Ada starts
	acct := bottest.RegisterAccount(t, hs, "ada")
	startBot(t, botSettings(hs, llm, acct, t.TempDir(), func(s *botSetup) {
		s.Stream = StreamOptions{On: true, Interval: 50 * time.Millisecond, MaxEdits: 50}
	}))
	ada := acct.UserID
	alice := bottest.NewMember(t, hs, "alice", true)

	// Element joins first, so that it can read all Ada sends, the intro too.
	room := alice.CreateRoom(&mautrix.ReqCreateRoom{Name: "three", InitialState: bottest.EncryptedRoom(),
		Invite: []id.UserID{el.UserID}})
	el.Join(room)
	alice.Wait("Element joins", bottest.MembershipOf(room, el.UserID, event.MembershipJoin))
	if _, err := alice.Client.InviteUser(context.Background(), room, &mautrix.ReqInviteUser{UserID: ada}); err != nil {
		t.Fatal(err)
	}
	el.Wait("the intro decrypts", func(e bottest.ElementEvent) bool {
		return e.Room == room && e.Sender == ada && e.Failure == "" && e.Message().MsgType == event.MsgNotice
	})

	t.Run("RoomOfThree", func(t *testing.T) {
		el := el.For(t)
		answer := scriptStream(t, llm, "A fox runs far. ", "It crosses ", "the river", " at dawn.")
		asked := alice.Say(room, "Ada, where does the fox run?")
		reply := checkStreamDecrypts(t, el, ada, room, asked, answer)
		alice.Wait("✅", bottest.ReactionTo(asked, reactDone))
		// Element decrypts each of Ada's events about the answer that the
		// mautrix member got, to the same text.
		for _, m := range alice.Find(func(e *event.Event) bool {
			return e.Sender == ada && (e.ID == reply || editsOf(reply)(e) || bottest.AnyReactionTo(asked)(e))
		}) {
			got := el.Wait("Element has "+m.ID.String(), func(e bottest.ElementEvent) bool { return e.ID == m.ID && e.Failure == "" })
			if a, b := mautrixText(m), visibleText(got.Message()); a != b {
				t.Errorf("%s: mautrix reads %q, Element %q", m.ID, a, b)
			}
		}
	})

	t.Run("DM", func(t *testing.T) {
		el := el.For(t)
		dm := el.CreateRoom("a DM", true, ada)
		el.Wait("Ada joins the DM", func(e bottest.ElementEvent) bool {
			return e.Room == dm && e.Type == event.StateMember.Type && e.Sender == ada && e.OwnContent["membership"] == "join"
		})
		answer := scriptStream(t, llm, "Just between us. ", "The key is ", "under the mat", " by the door.")
		asked := el.Say(dm, "where is the spare key?")
		checkStreamDecrypts(t, el, ada, dm, asked, answer)
	})

	t.Run("QuestionRedactedMidStream", func(t *testing.T) {
		el := el.For(t)
		hold := make(chan struct{})
		defer close(hold)
		llm.Script(llmtest.Reply{Tokens: []string{"Your door code is 5151. ", "It opens ", "the front door", " and the shed."},
			Hold: hold, HoldAfter: 3, ChunkDelay: 80 * time.Millisecond})
		asked := el.Say(room, "Ada, my door code is 5151, what does it open?")
		reply := el.Wait("the first sentence", replyFrom(ada, asked)).ID
		el.Wait("the reply showing what came before the hold", shows(reply, "Your door code is 5151. It opens the front door"))
		el.Wait("🧠", reactionFrom(ada, asked, reactThinking))
		redaction := el.Redact(room, asked)
		ctx, cancel := context.WithTimeout(context.Background(), bottest.Timeout)
		defer cancel()
		if err := llm.WaitCancelled(ctx, 1); err != nil {
			t.Fatalf("the model was not stopped: %v", err)
		}
		checkTakenBack(t, el, ada, room, asked, reply, redaction, "5151", 2) // the reply, 🧠 (edits as they came)
	})

	t.Run("ForgetMe", func(t *testing.T) {
		el := el.For(t)
		long := strings.Repeat("The locker is by the gym door, second row from the left. ", 240) // > one message
		llm.Script(llmtest.Reply{Tokens: []string{"Your locker code is 4417. ", "I will keep it ", "in mind.\n\n", long},
			ChunkDelay: 150 * time.Millisecond})
		asked := el.Say(room, "Ada, my locker code is 4417")
		reply := el.Wait("the first sentence", replyFrom(ada, asked)).ID
		el.Wait("✅", reactionFrom(ada, asked, reactDone))
		if len(continuations(el, ada, room, reply)) == 0 {
			t.Fatalf("the long answer has no continuation message")
		}
		forget := el.Say(room, "!ada forget me")
		el.Wait("forget me is confirmed", replyFrom(ada, forget))
		checkTakenBack(t, el, ada, room, asked, reply, "", "4417", 5) // the reply, an edit, a continuation, 🧠, ✅
	})
}

// streaming is a streamed text without the mark that more is coming.
func streaming(body string) string { return strings.TrimSuffix(body, " …") }

// streamedAnswer is a scripted streamed answer: the model holds before its
// last token until release, so that a state before the final one is shown.
type streamedAnswer struct {
	tokens  []string
	release func()
}

// before is the text shown before the hold, want the final text.
func (a streamedAnswer) before() string {
	return strings.TrimSpace(strings.Join(a.tokens[:len(a.tokens)-1], ""))
}
func (a streamedAnswer) want() string { return strings.TrimSpace(strings.Join(a.tokens, "")) }

// scriptStream scripts a streamed answer of a few slow tokens, the first a
// sentence (the first post).
func scriptStream(t *testing.T, llm *llmtest.Server, tokens ...string) streamedAnswer {
	hold := make(chan struct{})
	release := sync.OnceFunc(func() { close(hold) })
	t.Cleanup(release)
	llm.Script(llmtest.Reply{Tokens: tokens, Hold: hold, HoldAfter: len(tokens) - 1, ChunkDelay: 120 * time.Millisecond})
	return streamedAnswer{tokens: tokens, release: release}
}

// shows matches Element showing text (not yet final) for the event evID,
// with its latest edit applied.
func shows(evID id.EventID, text string) func(bottest.ElementEvent) bool {
	return func(e bottest.ElementEvent) bool {
		body, _ := e.Content["body"].(string)
		return e.ID == evID && e.Failure == "" && streaming(body) == text
	}
}

// checkStreamDecrypts follows Ada's streamed answer to asked in Element: the
// first post, the text before the model's hold, then (released) the final
// text with ✅. Every event of it Element got (the reply, its edits, 🧠
// and ✅) decrypted, and so did everything else Ada sent in the room. It
// returns the reply's id.
func checkStreamDecrypts(t *testing.T, el *bottest.Element, ada id.UserID, room id.RoomID, asked id.EventID, a streamedAnswer) id.EventID {
	t.Helper()
	want := a.want()
	reply := el.Wait("the first post", replyFrom(ada, asked))
	if body := streaming(reply.Message().Body); body == "" || !strings.HasPrefix(a.before(), body) {
		t.Errorf("the first post %q should be the start of %q", body, want)
	}
	el.Wait("🧠", reactionFrom(ada, asked, reactThinking))
	el.Wait("the text before the hold", shows(reply.ID, a.before()))
	a.release()
	el.Wait("✅", reactionFrom(ada, asked, reactDone))
	el.Wait("the final text shown", func(e bottest.ElementEvent) bool {
		return e.ID == reply.ID && e.Content["body"] == want
	})
	edits := el.Seen(func(e bottest.ElementEvent) bool { return e.Sender == ada && relReplace(e, reply.ID) })
	if len(edits) == 0 {
		t.Errorf("Element got no edit; the test needs the answer streamed")
	}
	t.Logf("Element decrypted the first post and %d edits", len(edits))
	last := ""
	for _, e := range edits {
		nc := e.Message().NewContent
		if nc == nil || !strings.HasPrefix(want, streaming(nc.Body)) {
			t.Errorf("edit %s: m.new_content %v is not a start of %q", e.ID, e.OwnContent["m.new_content"], want)
		} else {
			last = nc.Body
		}
	}
	if last != want {
		t.Errorf("the last edit reads %q, want %q", last, want)
	}
	// An event can come before its key (the homeserver delivers the key
	// to the device apart from the room's timeline): Element then shows it
	// as waiting for its key a moment, and decrypts it when the key comes.
	// Every event Ada sent in the room must decrypt in the end.
	for _, e := range el.Seen(func(e bottest.ElementEvent) bool { return e.Room == room && e.Sender == ada && e.Failure != "" }) {
		el.Wait("Ada's "+e.ID.String()+" decrypts once its key comes", func(d bottest.ElementEvent) bool {
			return d.ID == e.ID && d.Failure == ""
		})
		t.Logf("%s came before its key (%s) and decrypted when the key came", e.ID, e.Failure)
	}
	return reply.ID
}

// checkTakenBack checks that an answer taken back leaves nothing readable in
// Element: each of Ada's events about asked that Element got (the reply and
// its edits, continuation messages and their edits, her reactions) is
// redacted by Ada; in Element's timeline now none of them shows anything and
// none of Ada's events quotes secret; if redaction (the question's) is
// given, Ada posted nothing about the answer after it.
func checkTakenBack(t *testing.T, el *bottest.Element, ada id.UserID, room id.RoomID, asked, reply, redaction id.EventID, secret string, atLeast int) {
	t.Helper()
	// answer is every event of the answer Element got so far, as it read
	// it before any redaction.
	answer := func() map[id.EventID]bottest.ElementEvent {
		parts := append([]id.EventID{reply}, continuations(el, ada, room, reply)...)
		events := map[id.EventID]bottest.ElementEvent{}
		for _, e := range el.Seen(func(e bottest.ElementEvent) bool {
			if e.Room != room || e.Sender != ada || e.Type == event.EventRedaction.Type {
				return false
			}
			rel := e.Message().RelatesTo
			return slices.Contains(parts, e.ID) || rel.GetReplyTo() == asked || rel.GetAnnotationID() == asked ||
				slices.Contains(parts, rel.GetReplaceID())
		}) {
			events[e.ID] = e
		}
		return events
	}
	redacted := func(target id.EventID) func(bottest.ElementEvent) bool {
		return func(r bottest.ElementEvent) bool {
			return r.Type == event.EventRedaction.Type && r.Sender == ada && r.Redacts == target
		}
	}
	seen := answer()
	if len(seen) < atLeast {
		t.Errorf("Element got %d events of the answer, want %d or more", len(seen), atLeast)
	}
	for _, e := range seen {
		el.Wait("Ada redacts "+e.Type+" "+e.ID.String(), redacted(e.ID))
	}
	// The room's work is in order: anything more about the answer would
	// have come before this.
	status := el.Say(room, "!ada status")
	el.Wait("status", replyFrom(ada, status))
	seen = answer()
	timeline := el.Timeline(room)
	after := len(timeline)
	for i, e := range timeline {
		if redaction != "" && e.ID == redaction {
			after = i
		}
		if e.Sender != ada {
			continue
		}
		if _, ofAnswer := seen[e.ID]; ofAnswer && (!e.Redacted || len(e.Content) > 0) {
			t.Errorf("Element still shows this event of the answer: %s, content %v", e, e.Content)
		}
		if strings.Contains(visibleText(contentMessage(e.Content)), secret) {
			t.Errorf("Element shows an event of Ada's quoting %q: %s", secret, e)
		}
	}
	if redaction != "" && after == len(timeline) {
		t.Errorf("the question's redaction %s is not in Element's timeline", redaction)
	}
	for _, e := range timeline[min(after+1, len(timeline)):] {
		if _, ofAnswer := seen[e.ID]; ofAnswer {
			t.Errorf("Ada posted after the question was redacted: %s (as first read: %v)", e, seen[e.ID].OwnContent)
		}
	}
}

// continuations are Ada's further messages of the answer starting at reply:
// her text messages after it that are not edits.
func continuations(el *bottest.Element, ada id.UserID, room id.RoomID, reply id.EventID) []id.EventID {
	var out []id.EventID
	started := false
	for _, e := range el.Seen(func(e bottest.ElementEvent) bool { return e.Room == room && e.Sender == ada }) {
		c := e.Message()
		switch {
		case e.ID == reply:
			started = true
		case started && e.Type == event.EventMessage.Type && c.MsgType == event.MsgText && c.RelatesTo.GetReplaceID() == "":
			out = append(out, e.ID)
		}
	}
	return out
}

func replyFrom(sender id.UserID, to id.EventID) func(bottest.ElementEvent) bool {
	return func(e bottest.ElementEvent) bool {
		return e.Sender == sender && e.Failure == "" && e.Type == event.EventMessage.Type &&
			e.Message().RelatesTo.GetReplyTo() == to
	}
}

func reactionFrom(sender id.UserID, to id.EventID, key string) func(bottest.ElementEvent) bool {
	return func(e bottest.ElementEvent) bool {
		rel := e.Message().RelatesTo
		return e.Sender == sender && e.Failure == "" && e.Type == event.EventReaction.Type &&
			rel.GetAnnotationID() == to && rel.GetAnnotationKey() == key
	}
}

func relReplace(e bottest.ElementEvent, target id.EventID) bool {
	return e.Type == event.EventMessage.Type && e.Message().RelatesTo.GetReplaceID() == target
}

// visibleText is what a message or reaction shows: its text, the text of
// the edit it carries, the reaction's key.
func visibleText(c *event.MessageEventContent) string {
	s := c.Body + " " + c.FormattedBody
	if c.NewContent != nil {
		s += " " + c.NewContent.Body + " " + c.NewContent.FormattedBody
	}
	return s + " " + c.RelatesTo.GetAnnotationKey()
}

// mautrixText is visibleText of an event as a mautrix client parsed it.
func mautrixText(e *event.Event) string {
	if e.Type == event.EventReaction {
		return visibleText(&event.MessageEventContent{RelatesTo: &e.Content.AsReaction().RelatesTo})
	}
	return visibleText(e.Content.AsMessage())
}

func contentMessage(content map[string]any) *event.MessageEventContent {
	return bottest.ElementEvent{OwnContent: content}.Message()
}
