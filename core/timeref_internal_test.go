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
	p := namedPeriod{2023, time.October, 13}
	if !p.contains(time.Date(2023, 10, 13, 23, 0, 0, 0, time.UTC)) || p.contains(time.Date(2023, 10, 14, 0, 0, 0, 0, time.UTC)) {
		t.Error("13 October 2023 must hold that day, and only it")
	}
	if !(namedPeriod{month: time.June}).contains(time.Date(2019, 6, 30, 0, 0, 0, 0, time.UTC)) {
		t.Error("June without a year must hold every June")
	}
}
