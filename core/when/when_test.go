package when

import (
	"testing"
	"time"
)

func mustLoc(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	return loc
}

// TestPrefix resolves phrases across month and year ends, DST changes and
// time zones. want is the span's start in the reference's zone
// ("2006-01-02 15:04"); day spans (clock false) last one calendar day.
func TestPrefix(t *testing.T) {
	r := New(English)
	cases := []struct {
		zone, ref, text   string
		want, text2, rest string
		clock             bool
	}{
		// Durations: fixed units count real time, days keep the wall clock.
		{"UTC", "2026-11-27 10:00", "in 10 seconds ping", "2026-11-27 10:00:10", "in 10 seconds", "ping", true},
		{"UTC", "2026-12-31 23:55", "in 10 minutes happy new year", "2027-01-01 00:05", "in 10 minutes", "happy new year", true},
		{"UTC", "2026-11-27 10:00", "in an hour: stretch", "2026-11-27 11:00", "in an hour", "stretch", true},
		{"UTC", "2026-01-31 09:00", "in two days", "2026-02-02 09:00", "in two days", "", true},
		{"UTC", "2026-11-27 10:00", "in 1 week", "2026-12-04 10:00", "in 1 week", "", true},
		// Europe/Berlin leaves summer time on 2026-10-25 at 03:00 (to 02:00).
		{"Europe/Berlin", "2026-10-24 12:00", "in 1 day", "2026-10-25 12:00", "in 1 day", "", true},
		{"Europe/Berlin", "2026-10-24 12:00", "in 24 hours", "2026-10-25 11:00", "in 24 hours", "", true},
		// Times of day: today if still to come, else tomorrow.
		{"UTC", "2026-11-27 10:00", "at 14:30 standup", "2026-11-27 14:30", "at 14:30", "standup", true},
		{"UTC", "2026-11-27 15:00", "at 14:30 standup", "2026-11-28 14:30", "at 14:30", "standup", true},
		{"UTC", "2026-12-31 20:00", "at 9 call mum", "2027-01-01 09:00", "at 9", "call mum", true},
		{"UTC", "2026-11-27 10:00", "at 9pm", "2026-11-27 21:00", "at 9pm", "", true},
		{"UTC", "2026-11-27 10:00", "at 12 am", "2026-11-28 00:00", "at 12 am", "", true},
		{"UTC", "2026-11-27 10:00", "at noon lunch", "2026-11-27 12:00", "at noon", "lunch", true},
		{"UTC", "2026-11-27 10:00", "16:45 tea", "2026-11-27 16:45", "16:45", "tea", true},
		{"UTC", "2026-11-27 10:00", "at 9 tomorrow, water plants", "2026-11-28 09:00", "at 9 tomorrow", "water plants", true},
		// Days.
		{"UTC", "2026-11-30 18:00", "tomorrow at 9 pay rent", "2026-12-01 09:00", "tomorrow at 9", "pay rent", true},
		{"UTC", "2026-12-31 18:00", "Tomorrow at 9:15am", "2027-01-01 09:15", "Tomorrow at 9:15am", "", true},
		{"UTC", "2026-11-27 18:00", "tomorrow water plants", "2026-11-28 00:00", "tomorrow", "water plants", false},
		{"UTC", "2026-11-27 08:00", "today at 17:00", "2026-11-27 17:00", "today at 17:00", "", true},
		// 2026-11-27 is a Friday.
		{"UTC", "2026-11-27 08:00", "on Friday at 10 send the report", "2026-11-27 10:00", "on Friday at 10", "send the report", true},
		{"UTC", "2026-11-27 11:00", "on Friday at 10 send the report", "2026-12-04 10:00", "on Friday at 10", "send the report", true},
		{"UTC", "2026-11-27 08:00", "friday", "2026-12-04 00:00", "friday", "", false},
		{"UTC", "2026-12-30 12:00", "on monday at 8", "2027-01-04 08:00", "on monday at 8", "", true},
		{"UTC", "2026-11-27 12:00", "sat 10am", "2026-11-28 10:00", "sat 10am", "", true},
		// DST: Berlin enters summer time on 2026-03-29 (02:00 to 03:00).
		{"Europe/Berlin", "2026-03-28 12:00", "on sunday at 9", "2026-03-29 09:00", "on sunday at 9", "", true},
		{"Europe/Berlin", "2026-03-28 12:00", "tomorrow at 2:30", "2026-03-29 03:30", "tomorrow at 2:30", "", true},
		// ISO dates and times.
		{"UTC", "2026-11-27 12:00", "2027-02-28 at 08:00 renew", "2027-02-28 08:00", "2027-02-28 at 08:00", "renew", true},
		{"UTC", "2026-11-27 12:00", "on 2026-12-24 presents", "2026-12-24 00:00", "on 2026-12-24", "presents", false},
		// Dates: without a year the next one, today included.
		{"UTC", "2026-11-27 08:00", "on 13 October at 9 call mum", "2027-10-13 09:00", "on 13 October at 9", "call mum", true},
		{"UTC", "2026-11-27 08:00", "on 27 November at 9 call mum", "2026-11-27 09:00", "on 27 November at 9", "call mum", true},
		{"UTC", "2026-11-27 08:00", "Christmas at 18:00 call home", "2026-12-25 18:00", "Christmas at 18:00", "call home", true},
		{"UTC", "2026-11-27 08:00", "on 14/05 water plants", "2027-05-14 00:00", "on 14/05", "water plants", false},
		{"UTC", "2026-11-27 08:00", "on 3 March 2027 renew", "2027-03-03 00:00", "on 3 March 2027", "renew", false},
		{"America/New_York", "2026-11-27 12:00", "2026-12-01T14:30 dentist", "2026-12-01 14:30", "2026-12-01T14:30", "dentist", true},
		{"America/New_York", "2026-11-27 12:00", "2026-12-01T14:30:00Z dentist", "2026-12-01 09:30", "2026-12-01T14:30:00Z", "dentist", true},
		{"Asia/Tokyo", "2026-12-31 23:30", "at 0:15", "2027-01-01 00:15", "at 0:15", "", true},
		{"Australia/Sydney", "2026-11-27 12:00", "tomorrow at 9", "2026-11-28 09:00", "tomorrow at 9", "", true},
	}
	for _, c := range cases {
		loc := mustLoc(t, c.zone)
		ref, err := time.ParseInLocation("2006-01-02 15:04", c.ref, loc)
		if err != nil {
			t.Fatal(err)
		}
		span, rest, ok := r.Prefix(c.text, ref)
		if !ok {
			t.Errorf("%s %s %q: no phrase found", c.zone, c.ref, c.text)
			continue
		}
		layout := "2006-01-02 15:04"
		if len(c.want) > len(layout) {
			layout += ":05"
		}
		if got := span.Start.In(loc).Format(layout); got != c.want || span.Text != c.text2 || rest != c.rest || span.Clock != c.clock {
			t.Errorf("%s %s %q: got %s %q rest %q clock %t; want %s %q rest %q clock %t",
				c.zone, c.ref, c.text, got, span.Text, rest, span.Clock, c.want, c.text2, c.rest, c.clock)
		}
		if span.Clock && !span.End.Equal(span.Start) {
			t.Errorf("%q: a moment's End %s differs from its Start %s", c.text, span.End, span.Start)
		}
		if !span.Clock && !span.End.Equal(span.Start.AddDate(0, 0, 1)) {
			t.Errorf("%q: a day's span ends at %s", c.text, span.End)
		}
	}
}

// TestNotAPhrase: texts that start with no time are left alone.
func TestNotAPhrase(t *testing.T) {
	r := New(English)
	ref := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for _, text := range []string{"", "send the report", "9 bottles", "in the morning", "at home", "at 25:00", "at 9x",
		"at 13pm", "in ten years", "2026-13-01 at 9", "on time", "tonight take out the bins",
		"2026-12-01T25:00 dentist", "in June buy tickets", "May I call you", "on 31 June"} {
		if span, rest, ok := r.Prefix(text, ref); ok {
			t.Errorf("%q: found %q (%s), rest %q", text, span.Text, span.Start, rest)
		}
	}
	if _, ok := r.Resolve("tomorrow at 9 and more", ref); ok {
		t.Error("Resolve accepted a phrase followed by other words")
	}
	if s, ok := r.Resolve("tomorrow at 9", ref); !ok || s.Start.Hour() != 9 {
		t.Errorf("Resolve: %v %v", s, ok)
	}
}
