package storage

import (
	"context"
	"slices"
	"testing"
	"time"
)

// TestReminders: reminders get the room's next number (never reused while
// the room is joined), are listed soonest first, come due in order, are
// refused over the member's and the room's limits, and go with `forget me`
// (the member's, in that room), with the request (a redaction or an edit)
// and when the bot leaves the room.
func TestReminders(t *testing.T) {
	ctx := context.Background()
	b := openTestDB(t).Bridge()
	now := time.UnixMilli(1_700_000_000_000)
	add := func(room, member string, due time.Duration, memberLimit, roomLimit int) (BridgeReminder, error) {
		return b.AddReminder(ctx, BridgeReminder{RoomID: room, Member: member, Mention: member == "@u:x", Text: "t " + due.String(),
			Due: now.Add(due), EventID: "$e", Created: now}, memberLimit, roomLimit)
	}
	mustAdd := func(room, member string, due time.Duration) BridgeReminder {
		t.Helper()
		r, err := add(room, member, due, 10, 10)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r1 := mustAdd("!a:x", "@u:x", time.Hour)
	r2 := mustAdd("!a:x", "@v:x", time.Minute)
	mustAdd("!b:x", "@u:x", 2*time.Hour)
	if r1.Number != 1 || r2.Number != 2 {
		t.Fatalf("numbers %d, %d; want 1, 2", r1.Number, r2.Number)
	}
	if ok, err := b.DeleteReminder(ctx, r2.ID); err != nil || !ok {
		t.Fatalf("delete = %v, %v", ok, err)
	}
	if ok, _ := b.DeleteReminder(ctx, r2.ID); ok {
		t.Fatal("deleted twice")
	}
	if r3 := mustAdd("!a:x", "@v:x", 30*time.Second); r3.Number != 3 {
		t.Fatalf("number after a deletion = %d, want 3 (never reused)", r3.Number)
	}
	list, err := b.RoomReminders(ctx, "!a:x")
	if err != nil || len(list) != 2 || list[0].Number != 3 || list[1].Number != 1 || !list[1].Mention || !list[1].Due.Equal(now.Add(time.Hour)) {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if got, ok, err := b.Reminder(ctx, "!a:x", 1); err != nil || !ok || got.ID != r1.ID || got.Text != r1.Text {
		t.Fatalf("reminder 1 = %+v, %v, %v", got, ok, err)
	}
	if _, ok, _ := b.Reminder(ctx, "!b:x", 3); ok {
		t.Fatal("another room's number found")
	}
	if next, ok, err := b.NextReminderDue(ctx, now); err != nil || !ok || !next.Equal(now.Add(30*time.Second)) {
		t.Fatalf("next due = %v, %v, %v", next, ok, err)
	}
	if next, ok, err := b.NextReminderDue(ctx, now.Add(30*time.Second)); err != nil || !ok || !next.Equal(now.Add(time.Hour)) {
		t.Fatalf("next due after the first = %v, %v, %v", next, ok, err)
	}
	due, err := b.DueReminders(ctx, now.Add(time.Hour), BridgeReminder{}, 10)
	if err != nil || len(due) != 2 || due[0].Number != 3 || due[1].Number != 1 {
		t.Fatalf("due = %+v, %v", due, err)
	}
	if page, err := b.DueReminders(ctx, now.Add(time.Hour), due[0], 10); err != nil || len(page) != 1 || page[0].ID != due[1].ID {
		t.Fatalf("due after the first = %+v, %v", page, err)
	}

	// Limits: @u:x has one in !a:x; the room has two.
	if _, err := add("!a:x", "@u:x", time.Hour, 1, 10); err == nil {
		t.Fatal("the member's limit was not enforced")
	} else if e, ok := IsReminderLimit(err); !ok || !e.Member || e.Limit != 1 {
		t.Fatalf("member limit error = %v", err)
	}
	if _, err := add("!a:x", "@w:x", time.Hour, 5, 2); err == nil {
		t.Fatal("the room's limit was not enforced")
	} else if e, ok := IsReminderLimit(err); !ok || e.Member || e.Limit != 2 {
		t.Fatalf("room limit error = %v", err)
	}

	// The request's redaction or edit takes what it asked for.
	mustAdd("!c:x", "@u:x", time.Hour)
	mustAdd("!c:x", "@v:x", time.Hour)
	if n, err := b.DeleteEventReminders(ctx, "!c:x", "$other"); err != nil || n != 0 {
		t.Fatalf("delete by another event = %d, %v", n, err)
	}
	if n, err := b.DeleteEventReminders(ctx, "!c:x", "$e"); err != nil || n != 2 {
		t.Fatalf("delete by event = %d, %v", n, err)
	}
	if n, err := b.DeleteMemberReminders(ctx, "!a:x", "@u:x"); err != nil || n != 1 {
		t.Fatalf("forget member = %d, %v", n, err)
	}
	if list, _ := b.RoomReminders(ctx, "!b:x"); len(list) != 1 {
		t.Fatalf("the member's reminder in another room went too: %+v", list)
	}
	if err := b.DropRoomSettings(ctx, "!a:x"); err != nil {
		t.Fatal(err)
	}
	if list, _ := b.RoomReminders(ctx, "!a:x"); len(list) != 0 {
		t.Fatalf("reminders after leaving = %+v", list)
	}
	if r := mustAdd("!a:x", "@u:x", time.Hour); r.Number != 1 {
		t.Fatalf("numbering after leaving and rejoining = %d, want 1", r.Number)
	}
	if list, _ := b.RoomReminders(ctx, "!b:x"); len(list) != 1 {
		t.Fatalf("another room's reminders after leaving: %+v", list)
	}
}

// TestPersonForgottenTakesTheirReminders: forgetting a member everywhere
// (core's ForgetPerson, through the API or MCP) takes their pending
// reminders in every room, as `!ada forget me` does in one: their text is
// what they said. Other members' reminders stay.
func TestPersonForgottenTakesTheirReminders(t *testing.T) {
	ctx := context.Background()
	b := openTestDB(t).Bridge()
	now := time.UnixMilli(1_700_000_000_000)
	for _, r := range []BridgeReminder{{RoomID: "!a:x", Member: "@u:x"}, {RoomID: "!b:x", Member: "@u:x"}, {RoomID: "!a:x", Member: "@v:x"}} {
		r.Text, r.Due, r.EventID, r.Created = "see the oncologist", now.Add(time.Hour), "$e", now
		if _, err := b.AddReminder(ctx, r, 10, 10); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.PersonForgotten(ctx, "@u:x", "", time.Now()); err != nil {
		t.Fatal(err)
	}
	for room, want := range map[string]int{"!a:x": 1, "!b:x": 0} {
		rs, err := b.RoomReminders(ctx, room)
		if err != nil || len(rs) != want || (want == 1 && rs[0].Member != "@v:x") {
			t.Errorf("%s's reminders after forgetting @u:x: %+v, %v; want %d (@v:x's)", room, rs, err, want)
		}
	}
}

// TestRetentionTakesOldReminders: a reminder asked for before the
// retention cutoff goes, however far off it is due (its text is what a
// member said then); one asked for after the cutoff stays.
func TestRetentionTakesOldReminders(t *testing.T) {
	ctx := context.Background()
	b := openTestDB(t).Bridge()
	now := time.UnixMilli(1_700_000_000_000)
	cutoff := now.AddDate(0, 0, -30)
	for _, created := range []time.Time{cutoff.Add(-time.Minute), cutoff.Add(time.Minute)} {
		r := BridgeReminder{RoomID: "!a:x", Member: "@u:x", Text: "see the oncologist", Due: now.AddDate(1, 0, 0), EventID: "$e", Created: created}
		if _, err := b.AddReminder(ctx, r, 10, 10); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := b.DeleteRemindersBefore(ctx, cutoff); err != nil || n != 1 {
		t.Fatalf("DeleteRemindersBefore = %d, %v; want 1", n, err)
	}
	rs, err := b.RoomReminders(ctx, "!a:x")
	if err != nil || len(rs) != 1 || !rs[0].Created.After(cutoff) {
		t.Errorf("reminders after the sweep: %+v, %v; want only the one asked for after the cutoff", rs, err)
	}
}

// TestDueRemindersPages: paging past the reminders of earlier pages (which
// stay when their post fails) walks every due one once, those due at the
// same time too, and none not yet due.
func TestDueRemindersPages(t *testing.T) {
	ctx := context.Background()
	b := openTestDB(t).Bridge()
	now := time.UnixMilli(1_700_000_000_000)
	var want []int64
	for i, due := range []time.Duration{-time.Hour, -time.Minute, -time.Minute, -time.Minute, 0, time.Second} {
		r, err := b.AddReminder(ctx, BridgeReminder{RoomID: "!a:x", Member: "@u:x", Text: "t", Due: now.Add(due), EventID: "$e",
			Created: now}, 10, 10)
		if err != nil {
			t.Fatal(err)
		}
		if i < 5 {
			want = append(want, r.ID)
		}
	}
	var got []int64
	var after BridgeReminder
	for range 10 {
		page, err := b.DueReminders(ctx, now, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page {
			got = append(got, r.ID)
		}
		if len(page) < 2 {
			break
		}
		after = page[len(page)-1]
	}
	if !slices.Equal(got, want) {
		t.Fatalf("paged due reminders %v; want %v", got, want)
	}
}

// TestRemindersReadDoNotWaitForTheWriter: the reminder loop's reads (the
// next due time, the due page) and the room's listings read a snapshot on
// a reader connection: a long write (an import, a forgetting's rewrite)
// does not hold the reminders up.
func TestRemindersReadDoNotWaitForTheWriter(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	b := db.Bridge()
	now := time.UnixMilli(1_700_000_000_000)
	r, err := b.AddReminder(ctx, BridgeReminder{RoomID: "!a:x", Member: "@u:x", Text: "t", Due: now.Add(-time.Minute),
		EventID: "$e", Created: now}, 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	qctx := holdWriter(t, db)
	if next, ok, err := b.NextReminderDue(qctx, now.Add(-time.Hour)); err != nil || !ok || !next.Equal(r.Due) {
		t.Errorf("NextReminderDue during a write = %v, %v, %v; want %v", next, ok, err, r.Due)
	}
	if due, err := b.DueReminders(qctx, now, BridgeReminder{}, 10); err != nil || len(due) != 1 {
		t.Errorf("DueReminders during a write = %v, %v; want the one", due, err)
	}
	if got, ok, err := b.Reminder(qctx, "!a:x", r.Number); err != nil || !ok || got.ID != r.ID {
		t.Errorf("Reminder during a write = %+v, %v, %v", got, ok, err)
	}
}
