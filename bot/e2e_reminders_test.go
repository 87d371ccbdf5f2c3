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
	"github.com/ada-chat/ada/storage"
)

// reminderPosted matches the bot's reminder in room whose text holds text.
func reminderPosted(room id.RoomID, bot id.UserID, text string) func(*event.Event) bool {
	from := bottest.MessageFrom(room, bot, event.MsgText)
	return func(e *event.Event) bool {
		body := e.Content.AsMessage().Body
		return from(e) && strings.HasPrefix(body, "⏰ Reminder for") && strings.Contains(body, text)
	}
}

// waitLong is Member.Wait for events further off than bottest.Timeout (a
// reminder's time), polling the recorded events until within has passed.
func waitLong(t *testing.T, m *bottest.Member, what string, pred func(*event.Event) bool, within time.Duration) *event.Event {
	t.Helper()
	var found *event.Event
	deadline := time.Now().Add(within)
	for found == nil {
		if evs := m.Find(pred); len(evs) > 0 {
			found = evs[0]
		} else if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s", what, within)
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return found
}

// pendingReminder reads the room's pending reminder number n from the
// bridge's state.
func pendingReminder(t *testing.T, e *botEnv, room id.RoomID, n int) storage.BridgeReminder {
	t.Helper()
	r, ok, err := e.db.Bridge().Reminder(context.Background(), room.String(), n)
	if err != nil || !ok {
		t.Fatalf("reminder #%d of %s: %v, %v", n, room, ok, err)
	}
	return r
}

// TestBridgeReminders is issue 42's acceptance for reminders on a real
// homeserver, in a room of three: a reminder set for 10 seconds is posted
// within 2 s of its time as a reply to the request with a pill of the
// asker; listing and cancelling (its author or a moderator); the limits;
// `!ada forget me`; the room's time zone; a reminder asked for in plain
// words through the specialist; refusal in privacy mode; restarts: a
// 30-second reminder survives one, and one missed while Ada was down is
// posted at start, saying it is late; an edited request sets it again, a
// redacted one cancels it.
func TestBridgeReminders(t *testing.T) {
	f, setup := startRooms(t, func(s *botSetup) {
		s.Reminders = ReminderOptions{MemberPending: 2, RoomPending: 3}
	})
	room := f.groupRoom(t, "reminders")
	ctx := context.Background()

	// In time, mentioning the asker, replying to the request.
	asked := f.alice.Say(room, "!ada remind me in 10 seconds to stretch")
	confirm := f.alice.Wait("confirmation", bottest.ReplyTo(f.botID, asked, event.MsgNotice)).Content.AsMessage().Body
	if !strings.Contains(confirm, "Reminder #1 set for") || !strings.Contains(confirm, "(UTC)") || !strings.Contains(confirm, "“stretch”") {
		t.Errorf("confirmation %q", confirm)
	}
	due := pendingReminder(t, f.bot, room, 1).Due
	posted := waitLong(t, f.alice, "the 10-second reminder", reminderPosted(room, f.botID, "stretch"), 10*time.Second+bottest.Timeout)
	at := time.UnixMilli(posted.Timestamp)
	if at.Before(due) || at.Sub(due) > 2*time.Second {
		t.Errorf("posted at %s, due at %s: want within 2 s after", at.Format(time.RFC3339Nano), due.Format(time.RFC3339Nano))
	}
	c := posted.Content.AsMessage()
	if c.RelatesTo.GetReplyTo() != asked || c.Mentions == nil || len(c.Mentions.UserIDs) != 1 || c.Mentions.UserIDs[0] != f.alice.Client.UserID ||
		!strings.Contains(c.FormattedBody, "https://matrix.to/#/"+f.alice.Client.UserID.String()) || strings.Contains(c.Body, "Late") {
		t.Errorf("the reminder should reply to the request with a pill of alice: %s", bottest.Describe(posted))
	}

	// Listing and cancelling; the limits (2 per member, 3 per room).
	for _, step := range []struct {
		who  *bottest.Member
		cmd  string
		want []string
		not  string // nor this
	}{
		{f.alice, "!ada remind room tomorrow at 9 water the plants", []string{"#2", "at 09:00 (UTC)"}, ""},
		{f.bob, "!ada remind me on Friday at 10 send the report", []string{"#3", "at 10:00 (UTC)"}, ""},
		{f.bob, "!ada reminders", []string{"#2", "water the plants", "for the room", "#3", "send the report"}, "stretch"},
		{f.bob, "!ada reminders cancel 2", []string{"Only its author or a room moderator"}, ""}, // alice's
		{f.bob, "!ada reminders cancel 3", []string{"Cancelled reminder #3"}, ""},
		{f.bob, "!ada reminders cancel 3", []string{"no reminder #3"}, ""},
		{f.alice, "!ada remind me in 2 hours call the bank", []string{"#4"}, ""},
		{f.alice, "!ada remind me in 3 hours one too many", []string{"You have 2 reminders waiting"}, ""},
		{f.bob, "!ada remind me in 3 hours lunch", []string{"#5"}, ""},
		{f.bob, "!ada remind me in 4 hours one too many", []string{"This room has 3 reminders waiting"}, ""},
		{f.bob, "!ada remind me yesterday at 9 too late", []string{"has passed already"}, ""},
	} {
		got := f.command(t, step.who, room, step.cmd)
		for _, w := range step.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q, want %q in it", step.cmd, got, w)
			}
		}
		if step.not != "" && strings.Contains(got, step.not) {
			t.Errorf("%s: %q, want no %q in it", step.cmd, got, step.not)
		}
	}

	// Forget me takes alice's reminders (#2, #4), not bob's.
	if got := f.command(t, f.alice, room, "!ada forget me"); !strings.Contains(got, "2 pending reminders were cancelled") {
		t.Errorf("forget me: %q", got)
	}
	if list := f.command(t, f.bob, room, "!ada reminders"); strings.Contains(list, "#2") || strings.Contains(list, "#4") || !strings.Contains(list, "#5") {
		t.Errorf("listing after forget me: %q", list)
	}

	// The room's time zone: moderators only, validated, used.
	if got := f.command(t, f.bob, room, "!ada set timezone Europe/Berlin"); !strings.Contains(got, "Only room moderators") {
		t.Errorf("bob setting the time zone: %q", got)
	}
	if got := f.command(t, f.alice, room, "!ada set timezone Mars/Olympus"); !strings.Contains(got, "not a time zone I know") {
		t.Errorf("a bad time zone: %q", got)
	}
	if got := f.command(t, f.alice, room, "!ada set timezone Europe/Berlin"); !strings.Contains(got, "✅") {
		t.Errorf("setting the time zone: %q", got)
	}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	if got := f.command(t, f.alice, room, "!ada remind me tomorrow at 9 pick up the keys"); !strings.Contains(got, "at 09:00 (Europe/Berlin)") {
		t.Errorf("in Berlin: %q", got)
	}
	if d := pendingReminder(t, f.bot, room, 6).Due.In(berlin); d.Hour() != 9 || d.Minute() != 0 || d.YearDay() == time.Now().In(berlin).YearDay() {
		t.Errorf("tomorrow at 9 in Berlin is due at %s", d)
	}

	// In plain words, through the specialist, with the same confirmation.
	f.llm.Script(llmtest.Reply{Tokens: []string{`SPECIALIST_REQUEST[remind:{"when": "on Friday at 10", "text": "send the report", "who": "room"}]`}},
		llmtest.Reply{Tokens: []string{"Done: I will remind you all."}})
	q, answer := f.ask(t, f.bob, room, &event.MessageEventContent{MsgType: event.MsgText, Body: "Ada, remind us on Friday at 10 to send the report"})
	if body := answer.Content.AsMessage().Body; body != "Done: I will remind you all." {
		t.Errorf("answer %q", body)
	}
	got := f.bob.Wait("the specialist's confirmation", noticeReplyTo(f.botID, q, "Reminder #7 set for")).Content.AsMessage().Body
	if !strings.Contains(got, "at 10:00 (Europe/Berlin)") || !strings.Contains(got, "remind this room") || !strings.Contains(got, "“send the report”") {
		t.Errorf("specialist confirmation %q", got)
	}
	if d := pendingReminder(t, f.bot, room, 7); d.Due.In(berlin).Weekday() != time.Friday || d.Due.In(berlin).Hour() != 10 || d.Mention || d.Member != f.bob.Client.UserID.String() {
		t.Errorf("the specialist's reminder: %+v", d)
	}
	reqs := f.llm.ChatRequests()
	if prompt := fmtMessages(reqs[len(reqs)-2].Messages); !strings.Contains(prompt, "- remind (priority") {
		t.Errorf("the room's prompt should offer the reminder specialist:\n%s", prompt)
	}
	if result := fmtMessages(reqs[len(reqs)-1].Messages); !strings.Contains(result, "SPECIALIST_RESULT[remind] (ok=true)") || !strings.Contains(result, "Reminder #7") {
		t.Errorf("the model should get the confirmation:\n%s", result)
	}

	// Privacy mode refuses new ones.
	f.command(t, f.alice, room, "!ada storage off")
	if got := f.command(t, f.bob, room, "!ada remind me in 1 minute tea"); !strings.Contains(got, "privacy mode") {
		t.Errorf("privacy mode: %q", got)
	}
	f.command(t, f.alice, room, "!ada storage on")

	// A moderator cancels another member's; the limits leave room again.
	if got := f.command(t, f.alice, room, "!ada reminders cancel 5"); !strings.Contains(got, "Cancelled reminder #5") {
		t.Errorf("a moderator cancelling bob's: %q", got)
	}

	// A 30-second reminder survives a restart.
	asked = f.bob.Say(room, "!ada remind room in 30 seconds standup")
	f.bob.Wait("confirmation", noticeReplyTo(f.botID, asked, "Reminder #8"))
	due = pendingReminder(t, f.bot, room, 8).Due
	f.bot.stop()
	f.bot = startBot(t, setup)
	posted = waitLong(t, f.bob, "the 30-second reminder after a restart", reminderPosted(room, f.botID, "standup"), 30*time.Second+bottest.Timeout)
	if at := time.UnixMilli(posted.Timestamp); at.Before(due) || strings.Contains(posted.Content.AsMessage().Body, "Late") ||
		posted.Content.AsMessage().RelatesTo.GetReplyTo() != asked {
		t.Errorf("after the restart: posted at %s, due at %s: %s", at, due, bottest.Describe(posted))
	}

	// An edited request sets its reminder again with the new text; a
	// redacted one takes it away.
	asked = f.alice.Say(room, "!ada remind me in 2 hours call the bank")
	f.alice.Wait("confirmation", noticeReplyTo(f.botID, asked, "Reminder #9"))
	edit(f.alice, room, asked, "!ada remind me in 2 hours call the bank manager")
	f.alice.Wait("the edited command's confirmation", noticeReplyTo(f.botID, asked, "Reminder #10"))
	if list := f.command(t, f.bob, room, "!ada reminders"); strings.Contains(list, "#9") || !strings.Contains(list, "#10") || !strings.Contains(list, "call the bank manager") {
		t.Errorf("listing after an edit: %q", list)
	}
	if _, err := f.alice.Client.RedactEvent(ctx, room, asked); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the redacted request's reminder gone", func() bool {
		_, ok, err := f.bot.db.Bridge().Reminder(ctx, room.String(), 10)
		return err == nil && !ok
	})

	// One missed while Ada was down: posted at start, saying it is late.
	asked = f.alice.Say(room, "!ada remind me in 5 minutes feed the cat")
	f.alice.Wait("confirmation", noticeReplyTo(f.botID, asked, "Reminder #11"))
	f.bot.stop()
	// (Messages sent after this start would be its backlog: the test ends.)
	later := setup
	later.ClockAhead = 10 * time.Minute
	f.bot = startBot(t, later)
	posted = f.alice.Wait("the missed reminder", reminderPosted(room, f.botID, "feed the cat"))
	if body := posted.Content.AsMessage().Body; !strings.Contains(body, "Late: this was due") || posted.Content.AsMessage().RelatesTo.GetReplyTo() != asked {
		t.Errorf("the missed reminder should say it is late: %s", bottest.Describe(posted))
	}
	// Posted reminders are gone (each is deleted once its post is sent, so
	// a moment after members see it); alice's #6 and bob's #7 wait.
	waitFor(t, "only #6 and #7 pending after posting", func() bool {
		rs, err := f.bot.db.Bridge().RoomReminders(ctx, room.String())
		return err == nil && len(rs) == 2 && rs[0].Number+rs[1].Number == 13
	})
}
