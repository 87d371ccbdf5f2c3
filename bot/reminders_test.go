package bot

import (
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core/when"
)

// TestReminderParse: the time and text of `!ada remind` and of the
// specialist, and the refusals, in the room's zone.
func TestReminderParse(t *testing.T) {
	r := &reminders{resolve: when.New(when.English)}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 8, 0, 0, 0, berlin) // a Friday
	cases := []struct {
		when, text string
		due        string // "2006-01-02 15:04:05" in Berlin; "" = refused
		wantText   string // or the refusal's words
	}{
		{"in 10 seconds to stretch", "", "2026-11-27 08:00:10", "stretch"},
		{"on Friday at 10 to send the report", "", "2026-11-27 10:00:00", "send the report"},
		{"tomorrow water the plants", "", "2026-11-28 09:00:00", "water the plants"}, // a day without a time: at 9
		{"at 7:30 run", "", "2026-11-28 07:30:00", "run"},
		{"on Friday at 10", "send the report", "2026-11-27 10:00:00", "send the report"}, // the specialist
		{"2026-12-01T14:30", "dentist", "2026-12-01 14:30:00", "dentist"},
		{"on 24 December at 18:00 wrap the presents", "", "2026-12-24 18:00:00", "wrap the presents"},
		{"on Friday at 10 please", "x", "", "could not read a time"}, // the specialist's when is the whole phrase
		{"soon to do it", "", "", "could not read a time"},
		{"in 10 minutes", "", "", "What should I remind of"},
		{"today at 7 breakfast", "", "", "has passed"},
		{"2025-01-01 at 9 old", "", "", "has passed"},
		{"in 400 days far", "", "", "at most a year"},
		{"in 1 hour " + strings.Repeat("x", maxReminderRunes+1), "", "", "at most"},
	}
	for _, c := range cases {
		due, text, refusal := r.parse(reminderRequest{when: c.when, text: c.text}, now)
		if c.due == "" {
			if refusal == "" || !strings.Contains(refusal, c.wantText) {
				t.Errorf("%q/%q: refusal %q, want one with %q (got %s %q)", c.when, c.text, refusal, c.wantText, due, text)
			}
			continue
		}
		if got := due.In(berlin).Format("2006-01-02 15:04:05"); refusal != "" || got != c.due || text != c.wantText {
			t.Errorf("%q/%q: %s %q (refusal %q), want %s %q", c.when, c.text, got, text, refusal, c.due, c.wantText)
		}
	}
}

// TestShowTime: today and tomorrow are named, other days dated; seconds
// only when the time has them; the zone always.
func TestShowTime(t *testing.T) {
	now := time.Date(2026, 12, 31, 22, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		t    time.Time
		want string
	}{
		{now.Add(10 * time.Second), "today at 22:00:10 (UTC)"},
		{now.Add(11 * time.Hour), "tomorrow, Friday 1 January at 09:00 (UTC)"},
		{now.Add(35 * time.Hour), "Saturday 2 January 2027 at 09:00 (UTC)"},
	} {
		if got := showTime(c.t, time.UTC, now); got != c.want {
			t.Errorf("showTime(%s) = %q, want %q", c.t, got, c.want)
		}
	}
}
