package core

import (
	"slices"
	"testing"
	"time"
)

// TestTimesAskedNamesDates: the dates a prompt names, with or without a
// year (then of any year); "May" and "March" only as dates. Each is shown
// as match explains it.
func TestTimesAskedNamesDates(t *testing.T) {
	asked := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"What did we plan in June?", []string{"June, any year"}},
		{"What happened on October 13, 2023?", []string{"2023-10-13"}},
		{"and on 1 February, 2023", []string{"2023-02-01"}},
		{"the 3rd of March and December 2024", []string{"3 March, any year", "2024-12-01 to 2024-12-31"}},
		{"May I ask what you did in May 2025?", []string{"2025-05-01 to 2025-05-31"}},
		{"what did we say on 14/05 or 2023-05-16?", []string{"14 May, any year", "2023-05-16"}},
		{"we may march on", nil},
		{"in june, lower-cased, or in 2023", nil},
	} {
		var got []string
		for _, q := range timesAsked(tc.text, asked, nil).spans {
			got = append(got, askedDates(q))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.text, got, tc.want)
		}
	}
	turn := func(at time.Time) Document { return Document{Meta: Metadata{Type: DocTurn, Timestamp: at}} }
	oct13 := timesAsked("on 13 October 2023", asked, nil)
	if oct13.match(turn(time.Date(2023, 10, 13, 23, 0, 0, 0, time.UTC))) == "" || oct13.match(turn(time.Date(2023, 10, 14, 0, 0, 0, 0, time.UTC))) != "" {
		t.Error("13 October 2023 must hold that day, and only it")
	}
	june := timesAsked("in June", asked, nil)
	if june.match(turn(time.Date(2019, 6, 30, 0, 0, 0, 0, time.UTC))) == "" || june.match(turn(time.Date(2019, 7, 1, 0, 0, 0, 0, time.UTC))) != "" {
		t.Error("June without a year must hold every June, and only June")
	}
	// A turn that named a date (resolved when stored, its year missing:
	// the nearest to when it was written) matches a prompt naming it.
	said := Document{Meta: Metadata{Type: DocTurn, Timestamp: time.Date(2023, 11, 2, 9, 0, 0, 0, time.UTC),
		Times: mentionedTimes("the launch was on 13 October", time.Date(2023, 11, 2, 9, 0, 0, 0, time.UTC), nil)}}
	if got, want := oct13.match(said), `says "on 13 October" (2023-10-13), overlapping the prompt's "on 13 October 2023" (2023-10-13)`; got != want {
		t.Errorf("the turn naming 13 October: %q, want %q", got, want)
	}
	if got := timesAsked("what happened on 13 October 2022?", asked, nil).match(said); got != "" {
		t.Errorf("13 October 2022 matched the turn of 2023's: %q", got)
	}
}

// TestTimesMatch: a prompt's times, named or relative to when it is asked,
// match a turn written then or mentioning a time that overlaps them (its
// "yesterday" resolved against its own time in its own zone), and say so.
func TestTimesMatch(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	// Written at 10:00 on Monday 4 January 2027 in Tokyo (01:00 UTC): its
	// "yesterday" is Sunday 3 January.
	written := time.Date(2027, 1, 4, 10, 0, 0, 0, tokyo)
	said := Document{Meta: Metadata{Type: DocTurn, Timestamp: written.UTC(),
		Times: mentionedTimes("I finished the book yesterday", written, tokyo)}}
	if len(said.Meta.Times) != 1 || said.Meta.Times[0].Text != "yesterday" {
		t.Fatalf("times %v, want yesterday", said.Meta.Times)
	}
	plain := Document{Meta: Metadata{Type: DocTurn, Timestamp: time.Date(2026, 12, 20, 12, 0, 0, 0, time.UTC)}}
	asked := time.Date(2027, 1, 8, 9, 0, 0, 0, time.UTC) // a Friday
	for _, tc := range []struct {
		query       string
		said, plain bool
		why         string
	}{
		{"What did I finish on 3 January 2027?", true, false, `says "yesterday" (2027-01-03), overlapping the prompt's "on 3 January 2027" (2027-01-03)`},
		{"what did I finish on 4 January 2027?", true, false, `written on 2027-01-04, in the prompt's "on 4 January 2027" (2027-01-04)`},
		{"what did I do last week?", true, false, `says "yesterday" (2027-01-03), overlapping the prompt's "last week" (2026-12-28 to 2027-01-03)`},
		{"what did I finish in December?", false, true, ""},
		{"anything three weeks ago?", false, true, ""},
		{"what did I finish?", false, false, ""},
	} {
		a := timesAsked(tc.query, asked, nil)
		if got := a.match(said); (got != "") != tc.said || (tc.why != "" && got != tc.why) {
			t.Errorf("%q: the turn saying yesterday: %q, want match %t (%q)", tc.query, got, tc.said, tc.why)
		}
		if got := a.match(plain); (got != "") != tc.plain {
			t.Errorf("%q: the turn of 20 December: %q, want match %t", tc.query, got, tc.plain)
		}
	}
}

// TestSpanIn: a day shows by itself, a longer span by its first and last
// days, in the layout asked (the model's words, the explanation's dates).
func TestSpanIn(t *testing.T) {
	day := time.Date(2026, 3, 16, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct{ got, want string }{
		{spanIn(day, day.AddDate(0, 0, 1), "Monday 2 January 2006", "from "), "Monday 16 March 2026"},
		{spanIn(day, day.AddDate(0, 0, 7), "Monday 2 January 2006", "from "), "from Monday 16 March 2026 to Sunday 22 March 2026"},
		{spanDates(day, day.AddDate(0, 1, 0)), "2026-03-16 to 2026-04-15"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
