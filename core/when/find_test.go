package when

import (
	"strings"
	"testing"
	"time"
)

// TestFind resolves the times a message mentions against its own time, in
// its time zone, across month and year ends. want lists each span as
// "start/end" (dates in the reference's zone, end exclusive), joined by
// spaces; texts are the phrases as written, joined by "|".
func TestFind(t *testing.T) {
	r := New(English)
	cases := []struct{ zone, ref, text, want, texts string }{
		// 2026-11-27 is a Friday.
		{"UTC", "2026-11-27 10:00", "I went to the group yesterday, it was great", "2026-11-26/2026-11-27", "yesterday"},
		{"UTC", "2027-01-01 09:00", "Yesterday we had a party", "2026-12-31/2027-01-01", "Yesterday"},
		{"UTC", "2026-03-01 09:00", "yesterday morning I ran", "2026-02-28/2026-03-01", "yesterday morning"},
		{"UTC", "2026-11-27 10:00", "see you tomorrow!", "2026-11-28/2026-11-29", "tomorrow"},
		{"UTC", "2026-11-30 10:00", "this morning I painted", "2026-11-30/2026-12-01", "this morning"},
		{"UTC", "2026-11-30 10:00", "we go out tonight", "2026-11-30/2026-12-01", "tonight"},
		{"UTC", "2026-12-01 08:00", "last night was fun", "2026-11-30/2026-12-01", "last night"},
		{"UTC", "2026-11-27 10:00", "last Saturday we hiked", "2026-11-21/2026-11-22", "last Saturday"},
		{"UTC", "2026-11-27 10:00", "last Friday", "2026-11-20/2026-11-21", "last Friday"},
		{"UTC", "2026-11-27 10:00", "next Friday we ship", "2026-12-04/2026-12-05", "next Friday"},
		{"UTC", "2026-12-29 10:00", "next Monday", "2027-01-04/2027-01-05", "next Monday"},
		{"UTC", "2026-11-27 10:00", "this Sunday", "2026-11-29/2026-11-30", "this Sunday"},
		// A weekday without a direction: the one before and the one after.
		{"UTC", "2026-11-27 10:00", "let's ship on Tuesday", "2026-11-24/2026-11-25 2026-12-01/2026-12-02", "on Tuesday|on Tuesday"},
		{"UTC", "2026-11-27 10:00", "friday it is", "2026-11-27/2026-11-28", "friday"},
		// Weeks start on Monday; weekends are Saturday and Sunday.
		{"UTC", "2026-11-27 10:00", "last week was busy", "2026-11-16/2026-11-23", "last week"},
		{"UTC", "2027-01-02 10:00", "next week", "2027-01-04/2027-01-11", "next week"},
		{"UTC", "2026-11-27 10:00", "this weekend", "2026-11-28/2026-11-30", "this weekend"},
		{"UTC", "2026-11-29 10:00", "last weekend", "2026-11-21/2026-11-23", "last weekend"},
		// Months and years.
		{"UTC", "2026-12-15 10:00", "next month I move", "2027-01-01/2027-02-01", "next month"},
		{"UTC", "2026-01-31 10:00", "last month", "2025-12-01/2026-01-01", "last month"},
		{"UTC", "2026-05-31 10:00", "this month", "2026-05-01/2026-06-01", "this month"},
		{"UTC", "2026-01-10 10:00", "last year we met", "2025-01-01/2026-01-01", "last year"},
		// Quantities ago and ahead.
		{"UTC", "2026-03-02 10:00", "I started two days ago", "2026-02-28/2026-03-01", "two days ago"},
		{"UTC", "2026-01-05 10:00", "two weeks ago", "2025-12-22/2025-12-29", "two weeks ago"},
		{"UTC", "2026-01-05 10:00", "a few days ago", "2026-01-02/2026-01-03", "a few days ago"},
		{"UTC", "2026-01-05 10:00", "a couple of months ago", "2025-11-01/2025-12-01", "a couple of months ago"},
		{"UTC", "2026-03-15 10:00", "3 years ago", "2023-01-01/2024-01-01", "3 years ago"},
		{"UTC", "2026-12-30 10:00", "in three days we fly", "2027-01-02/2027-01-03", "in three days"},
		{"UTC", "2026-12-30 10:00", "in 2 weeks", "2027-01-11/2027-01-18", "in 2 weeks"},
		{"UTC", "2026-11-27 23:30", "in 2 hours", "2026-11-28/2026-11-29", "in 2 hours"},
		// Time zones: the message's own day, not UTC's.
		{"Asia/Tokyo", "2027-01-01 01:00", "yesterday", "2026-12-31/2027-01-01", "yesterday"},
		{"America/New_York", "2026-12-31 22:00", "tomorrow", "2027-01-01/2027-01-02", "tomorrow"},
		{"Europe/Berlin", "2026-10-26 10:00", "yesterday", "2026-10-25/2026-10-26", "yesterday"},
		// Dates: a missing year is the nearest one (its Start or End within
		// six months), across a year end.
		{"UTC", "2026-11-27 10:00", "we met on 13 October", "2026-10-13/2026-10-14", "on 13 October"},
		{"UTC", "2026-12-30 10:00", "see you on 3rd of January", "2027-01-03/2027-01-04", "on 3rd of January"},
		{"UTC", "2027-01-02 10:00", "the party on December 31st was loud", "2026-12-31/2027-01-01", "on December 31st"},
		{"UTC", "2026-11-27 10:00", "on October 13, 2023 we", "2023-10-13/2023-10-14", "on October 13, 2023"},
		{"UTC", "2026-11-27 10:00", "back in May 2023, and 3 may", "2023-05-01/2023-06-01 2027-05-03/2027-05-04", "May 2023|3 may"},
		{"UTC", "2026-11-27 10:00", "in June we flew", "2026-06-01/2026-07-01", "June"},
		{"UTC", "2026-02-10 10:00", "in December", "2025-12-01/2026-01-01", "December"},
		{"UTC", "2026-02-20 10:00", "on 29 February", "2024-02-29/2024-03-01", "on 29 February"},
		{"America/New_York", "2026-12-31 22:00", "on 1 January", "2027-01-01/2027-01-02", "on 1 January"},
		{"UTC", "2027-01-10 10:00", "at Christmas", "2026-12-25/2026-12-26", "Christmas"},
		{"UTC", "2028-03-01 10:00", "born on 29 February", "2028-02-29/2028-03-01", "on 29 February"},
		{"UTC", "2026-11-27 10:00", "on 31 april or 32 may", "", ""},
		{"UTC", "2026-11-27 10:00", "last June and next March", "2026-06-01/2026-07-01 2027-03-01/2027-04-01", "last June|next March"},
		{"UTC", "2026-06-10 10:00", "last June", "2025-06-01/2025-07-01", "last June"},
		{"UTC", "2026-11-27 10:00", "on 14/05 and 05/14/2023 and 2023-05-16", "2027-05-14/2027-05-15 2023-05-14/2023-05-15 2023-05-16/2023-05-17", "on 14/05|05/14/2023|2023-05-16"},
		{"UTC", "2026-11-27 10:00", "open 24/7, 1/2 a cup, 3/4", "", ""},
		{"UTC", "2026-11-27 10:00", "at Christmas, and New Year’s Eve 2025", "2026-12-25/2026-12-26 2025-12-31/2026-01-01", "Christmas|New Year’s Eve 2025"},
		{"UTC", "2026-11-27 10:00", "may I march in june? I may.", "", ""},
		{"Asia/Tokyo", "2027-01-01 01:00", "on 31 December", "2026-12-31/2027-01-01", "on 31 December"},
		// Several in one message.
		{"UTC", "2026-11-27 10:00", "Yesterday I said we'd meet next week.", "2026-11-26/2026-11-27 2026-11-30/2026-12-07", "Yesterday|next week"},
		// Nothing.
		{"UTC", "2026-11-27 10:00", "the sun was out, at home, in the morning, last of all", "", ""},
	}
	for _, c := range cases {
		loc := mustLoc(t, c.zone)
		ref, err := time.ParseInLocation("2006-01-02 15:04", c.ref, loc)
		if err != nil {
			t.Fatal(err)
		}
		var got, texts []string
		for _, s := range r.Find(c.text, ref) {
			if s.Start.Location() != loc {
				t.Errorf("%q: span in %s, not %s", c.text, s.Start.Location(), loc)
			}
			got = append(got, s.Start.Format("2006-01-02")+"/"+s.End.Format("2006-01-02"))
			texts = append(texts, s.Text)
		}
		if strings.Join(got, " ") != c.want || strings.Join(texts, "|") != c.texts {
			t.Errorf("%s %s %q: got %q %q; want %q %q", c.zone, c.ref, c.text, got, texts, c.want, c.texts)
		}
	}
}

// TestFindCutShort: a phrase cut short anywhere is read as far as it
// goes, never past the text's end.
func TestFindCutShort(t *testing.T) {
	r := New(English)
	ref := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for _, text := range []string{"in a couple of weeks", "a couple of months ago", "last Saturday", "on Friday",
		"yesterday morning", "in three days", "two weeks ago"} {
		words := strings.Fields(text)
		for n := 1; n <= len(words); n++ {
			r.Find(strings.Join(words[:n], " "), ref) // must not panic
		}
	}
	if got := r.Find("see you in a few", ref); len(got) != 0 {
		t.Errorf("\"in a few\" without a unit: %v", got)
	}
}

// TestFindOnlyPunctuationAtTheEnd: a text ending in an opening quote or
// bracket after a space, or made of one, has a word of nothing there
// (the fuzzed chat prompt "'" crashed the chat with an index out of range).
func TestFindOnlyPunctuationAtTheEnd(t *testing.T) {
	r := New(English)
	ref := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for _, text := range []string{"'", "(", "\"", "see you '", "see you (", "('\""} {
		if got := r.Find(text, ref); len(got) != 0 {
			t.Errorf("%q: %v", text, got)
		}
	}
}

// TestFindOutsideTheCalendar: a time before the year 1 or after 9999 means
// no date (it could not be stored: JSON's times hold 0 to 9999), found or
// read as a reminder's time; the same words within the years still do.
func TestFindOutsideTheCalendar(t *testing.T) {
	r := New(English)
	kiritimati, err := time.LoadLocation("Pacific/Kiritimati")
	if err != nil {
		t.Fatal(err)
	}
	early := time.Date(1, 6, 1, 0, 0, 0, 0, time.UTC)
	late := time.Date(9998, 12, 31, 23, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		text string
		ref  time.Time
	}{
		{"two years ago we met", early},
		{"in 5000 years", late},
		{"in two years", late.In(kiritimati)},
		{"last year", time.Date(1, 3, 1, 0, 0, 0, 0, time.UTC)},
	} {
		if got := r.Find(c.text, c.ref); len(got) != 0 {
			t.Errorf("Find(%q at %v) = %v, want nothing", c.text, c.ref, got)
		}
		if s, _, ok := r.Prefix(c.text, c.ref); ok {
			t.Errorf("Prefix(%q at %v) = %v, want nothing", c.text, c.ref, s)
		}
	}
	if got := r.Find("yesterday", late); len(got) != 1 || got[0].Start.Year() != 9998 {
		t.Errorf("yesterday at %v: %v, want a day of 9998", late, got)
	}
}

// TestFindAnyYear: a date named without its year says so; with its year,
// or relative, it does not.
func TestFindAnyYear(t *testing.T) {
	r := New(English)
	ref := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for text, want := range map[string]bool{"on 13 October": true, "in June": true, "14/05": true, "Christmas": true,
		"on 13 October 2023": false, "May 2023": false, "2023-05-14": false, "last June": false, "yesterday": false} {
		got := r.Find(text, ref)
		if len(got) != 1 || got[0].AnyYear != want {
			t.Errorf("%q: %+v, want one span with AnyYear %t", text, got, want)
		}
	}
}

// TestAsksWhen: a question asks for a time when it starts with "when" or
// asks for a date anywhere; a "when" inside it does not.
func TestAsksWhen(t *testing.T) {
	r := New(English)
	for text, want := range map[string]bool{"When did Sam move to Lisbon?": true, "  when is the party": true,
		"On what date did we ship?": true, "How long ago did she start?": true,
		"What did Sam say when we met?": false, "Where is the whenua?": false, "": false} {
		if got := r.AsksWhen(text); got != want {
			t.Errorf("%q: %t, want %t", text, got, want)
		}
	}
}
