package bot

import (
	"fmt"
	"slices"
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
// message back. Neither the recent turns nor the room's recent messages
// reach back to it. The test's embedder (embed.Hash) reads words, not
// meaning: bob's message shares only "ship" with the question, and its
// relevance is under RAG_RELEVANCE_FLOOR; it is recalled because it is of
// the time the question names and shares a word with it (without that
// rule, the prompt lacks it).
func TestBridgeRoomTimes(t *testing.T) {
	f, room := startTimesRoom(t)
	said := nextWeekdayNoon(time.Now().Add(time.Hour), time.Wednesday)
	asked := said.AddDate(0, 0, 7)
	// Monday and Tuesday of the week asked in.
	p := f.shipStory(t, room, said, asked.AddDate(0, 0, -2), asked)
	if !strings.Contains(p, "let's ship on Friday") {
		t.Fatalf("asked a week later about last week, the prompt lacks what bob said then:\n%s", p)
	}
	// !ada why says which time matched (the explain of issue 37), and that
	// it brought the message in below the floor.
	why := f.command(t, f.alice, room, "!ada why")
	want := fmt.Sprintf("written on %s, in the prompt's \"last week\"", said.Format(time.DateOnly))
	if line, ok := lineWith(why, "let's ship on Friday"); !ok || !strings.Contains(line, want) || !strings.Contains(line, "below the relevance floor") {
		t.Errorf("!ada why should say bob's message was recalled for its time (%s), below the floor:\n%s", want, why)
	}
}

// lineWith is the first line of text holding s.
func lineWith(text, s string) (string, bool) {
	for line := range strings.Lines(text) {
		if strings.Contains(line, s) {
			return line, true
		}
	}
	return "", false
}

// TestBridgeRoomTimesZone: the room's `timezone` decides which days its
// times mean. In a room in Auckland, bob's message is written on a
// Saturday afternoon in UTC, a Sunday in Auckland; alice asks on the
// Monday morning after (Sunday evening in UTC). "Last week" is the week
// of that Sunday in Auckland, while in UTC the message is of the week
// asked in: read in UTC, the question misses it (seen by leaving the
// setting out). The decoys are from the week before last in either zone.
func TestBridgeRoomTimesZone(t *testing.T) {
	f, room := startTimesRoom(t)
	if got := f.command(t, f.alice, room, "!ada set timezone Pacific/Auckland"); !strings.Contains(got, "✅") {
		t.Fatalf("setting the time zone: %q", got)
	}
	asked := nextWeekdayNoon(time.Now().AddDate(0, 0, 18), time.Sunday).Add(8 * time.Hour) // 20:00 UTC
	said := asked.AddDate(0, 0, -1).Add(-6 * time.Hour)                                    // Saturday 14:00 UTC
	p := f.shipStory(t, room, said, asked.AddDate(0, 0, -17), asked)
	if !strings.Contains(p, "let's ship on Friday") {
		t.Fatalf("asked in Auckland about last week, the prompt lacks what bob said on its Sunday:\n%s", p)
	}
}

// startTimesRoom starts a bridge whose room window holds two messages, and
// a room of three; the model extracts no memories, so that what comes
// back is the turn itself.
func startTimesRoom(t *testing.T) (*roomsFixture, id.RoomID) {
	f, _ := startRooms(t, func(s *botSetup) { s.MaxContextMessages = 2 })
	f.llm.Handle(func(r llmtest.Request) (llmtest.Reply, bool) {
		if r.Format == nil {
			return llmtest.Reply{}, false
		}
		return llmtest.Reply{Tokens: []string{`{"facts":[]}`}}, true
	})
	return f, f.groupRoom(t, "release")
}

// shipDecoys are about shipping and share more words with alice's question
// than bob's message does; the times they name are never the week asked
// about.
var shipDecoys = []string{
	"Ada, we decided shipping waits for the security review.",
	"Ada, what did we decide about shipping labels?",
	"Ada, did we decide on shipping the beta tomorrow?",
	"Ada, we decided about shipping: the docs go out next month.",
	"Ada, what about shipping the mobile app in three weeks?",
	"Ada, we decided shipping needs a green build first.",
	"Ada, did we decide who is shipping the hotfix tomorrow?",
	"Ada, about shipping: we decided the release notes come first.",
	"Ada, what did we decide about shipping costs?",
	"Ada, we decided shipping the installer is Nadia's job.",
}

// shipStory plays the room's story in time order: bob's decision at said,
// the decoys from decoysFrom (two hours apart, each a sitting of its own),
// two questions of small talk just before asked (the recent turns and the
// room's recent messages), and alice's question at asked. It returns the
// prompt of her question.
func (f *roomsFixture) shipStory(t *testing.T, room id.RoomID, said, decoysFrom, asked time.Time) string {
	t.Helper()
	type line struct {
		who  *bottest.Member
		text string
		at   time.Time
	}
	lines := []line{{f.bob, "Ada, let's ship on Friday.", said}}
	for i, text := range shipDecoys {
		lines = append(lines, line{f.alice, text, decoysFrom.Add(time.Duration(2*i) * time.Hour)})
	}
	lines = append(lines, line{f.alice, "Ada, how is the weather?", asked.Add(-20 * time.Minute)},
		line{f.bob, "Ada, and tomorrow's weather?", asked.Add(-10 * time.Minute)},
		line{f.alice, "Ada, what did we decide about shipping last week?", asked})
	slices.SortFunc(lines, func(a, b line) int { return a.at.Compare(b.at) })
	for _, l := range lines {
		f.askAt(t, l.who, room, l.text, l.at)
	}
	return lastPrompt(t, f.llm)
}
