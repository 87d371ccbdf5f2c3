package core

import (
	"slices"
	"testing"
	"time"
)

// TestNamedPeriods: the months and days a prompt names, with or without a
// year; "May" and "March" only as dates.
func TestNamedPeriods(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []namedPeriod
	}{
		{"What did we plan in June?", []namedPeriod{{month: time.June}}},
		{"What happened on October 13, 2023?", []namedPeriod{{2023, time.October, 13}}},
		{"and on 1 February, 2023", []namedPeriod{{2023, time.February, 1}}},
		{"the 3rd of March and December 2024", []namedPeriod{{0, time.March, 3}, {2024, time.December, 0}}},
		{"May I ask what you did in May 2025?", []namedPeriod{{2025, time.May, 0}}},
		{"we may march on", nil},
		{"in june, lower-cased, or in 2023", nil},
	} {
		if got := namedPeriods(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %v, want %v", tc.text, got, tc.want)
		}
	}
	turn := func(at time.Time) Document { return Document{Meta: Metadata{Type: DocTurn, Timestamp: at}} }
	oct13 := askedTimes{named: []namedPeriod{{2023, time.October, 13}}}
	if oct13.match(turn(time.Date(2023, 10, 13, 23, 0, 0, 0, time.UTC))) == "" || oct13.match(turn(time.Date(2023, 10, 14, 0, 0, 0, 0, time.UTC))) != "" {
		t.Error("13 October 2023 must hold that day, and only it")
	}
	if (askedTimes{named: []namedPeriod{{month: time.June}}}).match(turn(time.Date(2019, 6, 30, 0, 0, 0, 0, time.UTC))) == "" {
		t.Error("June without a year must hold every June")
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
		{"What did I finish on 3 January 2027?", true, false, `says "yesterday" (2027-01-03), in the time the prompt names (3 January 2027)`},
		{"what did I finish on 4 January 2027?", true, false, `written on 2027-01-04, in the time the prompt names (4 January 2027)`},
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
