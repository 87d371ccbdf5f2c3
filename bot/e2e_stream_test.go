package bot

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// editsOf matches the edits (m.replace) of target.
func editsOf(target id.EventID) func(*event.Event) bool {
	return func(evt *event.Event) bool {
		if evt.Type != event.EventMessage {
			return false
		}
		c := evt.Content.AsMessage()
		return c.RelatesTo != nil && c.RelatesTo.Type == event.RelReplace && c.RelatesTo.EventID == target
	}
}

// TestBridgeStreamsByEdits: with STREAM_EDITS on, the first sentence is
// posted while the model is still writing, then edited as the tokens come,
// within the cap; the last edit is the whole answer, ✅ comes after it, and
// the turn is stored once with the final text. In an encrypted room every
// edit and every reaction is encrypted. A failure mid-stream edits the reply
// to say the answer is incomplete.
func TestBridgeStreamsByEdits(t *testing.T) {
	hs := bottest.StartHomeserver(t)
	llm := llmtest.New(t)
	acct := bottest.RegisterAccount(t, hs, "ada")
	const maxEdits = 6
	// The search service answers when the test has seen the pause shown.
	searched := make(chan struct{})
	var searchEnded atomic.Bool
	search := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer searchEnded.Store(true)
		select {
		case <-searched:
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, `{"results":[{"title":"Foxes","url":"https://example.org/fox","content":"Foxes run far."}]}`)
	}))
	t.Cleanup(search.Close)
	bot := startBot(t, botSettings(hs, llm, acct, t.TempDir(), func(s *botSetup) {
		s.Stream = StreamOptions{On: true, Interval: 100 * time.Millisecond, MaxEdits: maxEdits}
		s.WebSearchURL = search.URL
	}))
	alice := bottest.NewMember(t, hs, "alice", true)

	newRoom := func(t *testing.T, name string, encrypted bool) id.RoomID {
		req := &mautrix.ReqCreateRoom{Name: name, Invite: []id.UserID{acct.UserID}}
		if encrypted {
			req.InitialState = bottest.EncryptedRoom()
		}
		room := alice.CreateRoom(req)
		alice.Wait("intro", bottest.MessageFrom(room, acct.UserID, event.MsgNotice))
		return room
	}

	for _, encrypted := range []bool{false, true} {
		name := map[bool]string{false: "Plain", true: "Encrypted"}[encrypted]
		t.Run(name, func(t *testing.T) {
			room := newRoom(t, "stream "+name, encrypted)
			tokens := []string{"Once upon a time. ", "There was ", "a **bold** fox"}
			for i := 0; i < 16; i++ {
				tokens = append(tokens, " who ran", " far.")
			}
			answer := strings.TrimSpace(strings.Join(tokens, ""))
			hold := make(chan struct{})
			llm.Script(llmtest.Reply{Tokens: tokens, Hold: hold, HoldAfter: 2, ChunkDelay: 120 * time.Millisecond})
			asked := alice.Say(room, "Ada, tell me a story")

			// The first sentence is shown while the model is held mid-answer.
			reply := alice.Wait("the first sentence", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
			if body := reply.Content.AsMessage().Body; !strings.HasPrefix(body, "Once upon a time.") || !strings.HasSuffix(body, streamingMark) {
				t.Errorf("first post = %q, want the first sentence marked as still being written", body)
			}
			if len(alice.Find(bottest.ReactionTo(asked, reactDone))) > 0 {
				t.Errorf("✅ before the answer was finished")
			}
			close(hold)
			alice.Wait("✅", bottest.ReactionTo(asked, reactDone))

			all := alice.Find(func(*event.Event) bool { return true })
			edits := alice.Find(editsOf(reply.ID))
			if len(edits) < 3 || len(edits) > maxEdits {
				t.Fatalf("%d edits, want 3..%d", len(edits), maxEdits)
			}
			last := edits[len(edits)-1]
			nc := last.Content.AsMessage().NewContent
			if nc == nil || nc.Body != answer || !strings.Contains(nc.FormattedBody, "<strong>bold</strong>") {
				t.Errorf("last edit = %+v, want the whole answer rendered", nc)
			}
			if bottest.IndexOf(all, bottest.ReactionTo(asked, reactDone)) < bottest.IndexOf(all, func(e *event.Event) bool { return e.ID == last.ID }) {
				t.Errorf("✅ arrived before the last edit")
			}
			if n := bot.count(`SELECT count(*) FROM documents WHERE room_id = ? AND type = 'turn' AND text = ?`, room.String(), answer); n != 1 {
				t.Errorf("%d stored turns hold the final answer, want 1", n)
			}
			if !encrypted {
				return
			}
			for _, e := range append(edits, reply) {
				if e.Mautrix.EventSource&event.SourceDecrypted == 0 {
					t.Errorf("event %s was not decrypted: sent in plaintext", e.ID)
				}
			}
			for _, key := range []string{reactThinking, reactDone} {
				r := alice.Wait(key, bottest.ReactionTo(asked, key))
				if r.Mautrix.EventSource&event.SourceDecrypted == 0 {
					t.Errorf("%s was not encrypted", key)
				}
			}
			for _, r := range alice.RawFrom(room, acct.UserID) {
				if r.Type == event.EventReaction.Type {
					t.Errorf("plaintext m.reaction %s in an encrypted room", r.ID)
				}
			}
			assertNoPlaintextFrom(t, alice, room, acct.UserID)
		})
	}

	// A room's `stream` setting wins over STREAM_EDITS: off here, the
	// answer is posted whole, never edited.
	t.Run("RoomSettingOff", func(t *testing.T) {
		room := newRoom(t, "stream off", false)
		set := alice.Say(room, "!ada set stream off")
		alice.Wait("the setting confirmed", bottest.ReplyTo(acct.UserID, set, event.MsgNotice))
		llm.Script(llmtest.Reply{Tokens: []string{"Whole at once. ", "No edits."}})
		asked := alice.Say(room, "Ada, answer in one go")
		reply := alice.Wait("the answer", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
		alice.Wait("✅", bottest.ReactionTo(asked, reactDone))
		if body := reply.Content.AsMessage().Body; body != "Whole at once. No edits." {
			t.Errorf("answer = %q, want it whole", body)
		}
		if edits := alice.Find(editsOf(reply.ID)); len(edits) > 0 {
			t.Errorf("the answer was edited %d times with stream off", len(edits))
		}
	})

	t.Run("SpecialistPause", func(t *testing.T) {
		room := newRoom(t, "stream search", false)
		llm.Script(llmtest.Reply{Tokens: []string{"Let me look that up. ", `SPECIALIST_REQUEST[web_search:{"query": "foxes"}]`}},
			llmtest.Reply{Tokens: []string{"Foxes run far."}})
		asked := alice.Say(room, "Ada, do foxes run far?")
		reply := alice.Wait("the first sentence", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
		// The pause is shown in the first post or in an edit, whichever the
		// specialist's start came in time for.
		alice.Wait("the pause shown", func(e *event.Event) bool {
			c := e.Content.AsMessage()
			if e.ID == reply.ID {
				return strings.Contains(c.Body, "searching the web…")
			}
			return editsOf(reply.ID)(e) && c.NewContent != nil && strings.Contains(c.NewContent.Body, "searching the web…")
		})
		if searchEnded.Load() {
			t.Errorf("the pause was shown only after the search had ended")
		}
		close(searched)
		alice.Wait("✅", bottest.ReactionTo(asked, reactDone))
		edits := alice.Find(editsOf(reply.ID))
		if nc := edits[len(edits)-1].Content.AsMessage().NewContent; nc == nil || nc.Body != "Let me look that up. Foxes run far." {
			t.Errorf("last edit = %+v, want the whole answer without the pause note", nc)
		}
	})

	t.Run("QuestionRedactedMidStream", func(t *testing.T) {
		room := newRoom(t, "stream redaction", false)
		hold := make(chan struct{})
		defer close(hold)
		llm.Script(llmtest.Reply{Tokens: []string{"You asked about it. ", "More."}, Hold: hold, HoldAfter: 1})
		asked := alice.Say(room, "Ada, something I regret")
		reply := alice.Wait("the first sentence", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
		if _, err := alice.Client.RedactEvent(context.Background(), room, asked); err != nil {
			t.Fatal(err)
		}
		alice.Wait("the streamed reply redacted with its question", func(e *event.Event) bool {
			return e.Sender == acct.UserID && bottest.RedactionOf(reply.ID)(e)
		})
	})

	t.Run("FailureMidStream", func(t *testing.T) {
		room := newRoom(t, "stream failure", false)
		hold := make(chan struct{})
		llm.Script(llmtest.Reply{Tokens: []string{"The first half. ", "and then"}, Hold: hold, HoldAfter: 1, Abort: true})
		asked := alice.Say(room, "Ada, tell me something")
		reply := alice.Wait("the first sentence", bottest.ReplyTo(acct.UserID, asked, event.MsgText))
		close(hold)
		alice.Wait("❌", bottest.ReactionTo(asked, reactFailed))
		broken := alice.Wait("the reply marked incomplete", func(e *event.Event) bool {
			nc := e.Content.AsMessage().NewContent
			return editsOf(reply.ID)(e) && nc != nil && strings.Contains(nc.Body, "incomplete")
		})
		if body := broken.Content.AsMessage().NewContent.Body; !strings.HasPrefix(body, "The first half.") {
			t.Errorf("incomplete reply = %q, want the text so far kept", body)
		}
		if n := len(alice.Find(bottest.ReactionTo(asked, reactDone))); n != 0 {
			t.Errorf("✅ on a failed answer")
		}
	})
}
