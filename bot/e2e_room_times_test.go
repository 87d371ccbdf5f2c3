package bot

import (
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/bot/bottest"
	"github.com/ada-chat/ada/core/llm/llmtest"
)

// nextWeekdayNoon is the first day of the given weekday, at 12:00 UTC,
// later than after.
func nextWeekdayNoon(after time.Time, day time.Weekday) time.Time {
	t := time.Date(after.Year(), after.Month(), after.Day(), 12, 0, 0, 0, time.UTC)
	for t.Weekday() != day || !t.After(after) {
		t = t.AddDate(0, 0, 1)
	}
	return t
}

// askAt is ask for a message the homeserver stamps at (SendAt), with the
// bridge's and the core's clock set to that time too.
func (f *roomsFixture) askAt(t *testing.T, from *bottest.Member, room id.RoomID, text string, at time.Time) {
	t.Helper()
	f.bot.clock.Set(time.Until(at))
	asked := from.SendAt(room, &event.MessageEventContent{MsgType: event.MsgText, Body: text}, at)
	from.Wait("reply to "+text, bottest.ReplyTo(f.botID, asked, event.MsgText))
	from.Wait("✅ on "+text, bottest.ReactionTo(asked, reactDone))
}

// TestBridgeRoomTimes is issue 37's room acceptance on a real homeserver,
// in a room of three: bob tells Ada "let's ship on Friday" on a Wednesday;
// a week later alice asks "what did we decide about shipping last week?",
// and the prompt holds bob's message. The days are set through the
// homeserver (the events' origin_server_ts), so the turns are stored with
// their times by the bridge's own path. Ten questions about shipping on
// other days, asked on the Monday and Tuesday before, share more words
// with the question than bob's message does and outnumber the recalled
// turns (RAG_RECALL_TOP_K): only the time the question names brings bob's
// message back (with the time match turned off, it ranks eleventh).
// Neither the recent turns nor the room's recent messages reach back to it.
//
// Bob says "we decided: let's ship on Friday": the test's embedder
// (embed.Hash) reads words, not meaning, and the bare "let's ship on
// Friday" shares only "ship" with the question: its relevance (0.06) is
// under RAG_RELEVANCE_FLOOR, below which no time makes a turn recalled.
func TestBridgeRoomTimes(t *testing.T) {
	f, _ := startRooms(t, func(s *botSetup) { s.MaxContextMessages = 2 })
	// No automatic memories: the message must come back as the turn it is.
	f.llm.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		if r.Format == nil {
			return llmtest.Reply{}, false
		}
		return llmtest.Reply{Tokens: []string{`{"facts":[]}`}}, true
	})
	room := f.groupRoom(t, "release")

	said := nextWeekdayNoon(time.Now().Add(time.Hour), time.Wednesday)
	f.askAt(t, f.bob, room, "Ada, we decided: let's ship on Friday.", said)
	asked := said.AddDate(0, 0, 7)
	decoys := []string{
		"Ada, we decided shipping waits for the security review.",
		"Ada, what did we decide about shipping labels?",
		"Ada, did we decide on shipping the beta tomorrow?",
		"Ada, we decided about shipping: the docs go out next month.",
		"Ada, what about shipping the mobile app in two weeks?",
		"Ada, we decided shipping needs a green build first.",
		"Ada, did we decide who is shipping the hotfix tomorrow?",
		"Ada, about shipping: we decided the release notes come first.",
		"Ada, what did we decide about shipping costs?",
		"Ada, we decided shipping the installer is Nadia's job.",
	}
	// Monday and Tuesday of the week asked in, each question a sitting of
	// its own (two hours apart).
	for i, text := range decoys {
		f.askAt(t, f.alice, room, text, asked.AddDate(0, 0, -2).Add(time.Duration(2*i)*time.Hour))
	}
	f.askAt(t, f.alice, room, "Ada, how is the weather?", asked.Add(-20*time.Minute))
	f.askAt(t, f.bob, room, "Ada, and tomorrow's weather?", asked.Add(-10*time.Minute))

	f.askAt(t, f.alice, room, "Ada, what did we decide about shipping last week?", asked)
	p := lastPrompt(t, f.llm)
	if !strings.Contains(p, "let's ship on Friday") {
		t.Fatalf("asked a week later about last week, the prompt lacks what bob said then:\n%s", p)
	}
	t.Logf("prompt:\n%s", p)
}
