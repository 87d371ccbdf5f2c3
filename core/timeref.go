package core

import (
	"regexp"
	"strconv"
	"time"
)

// A prompt that names a time ("in June", "on 13 October 2023", "in
// December 2023") asks about what was said then: the relevant turns of that
// time rank above others (see rankRecall). Only English month names are
// read, capitalised as dates are written; "May" and "March" count only next
// to a day or a year, since they are also words. A year alone names too
// much to tell turns apart.

// namedPeriod is a time a text names: a month, optionally of a year and
// a day (0 = any).
type namedPeriod struct {
	year  int
	month time.Month
	day   int
}

// contains reports whether t (in UTC) falls within p.
func (p namedPeriod) contains(t time.Time) bool {
	t = t.UTC()
	return t.Month() == p.month && (p.year == 0 || t.Year() == p.year) && (p.day == 0 || t.Day() == p.day)
}

var (
	monthNames = map[string]time.Month{"January": 1, "February": 2, "March": 3, "April": 4, "May": 5, "June": 6,
		"July": 7, "August": 8, "September": 9, "October": 10, "November": 11, "December": 12}
	// dateRE finds "[day] Month [day][,] [year]": the day before or after
	// the month, the year after it.
	dateRE = regexp.MustCompile(`\b(?:(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?)?(January|February|March|April|May|June|July|August|September|October|November|December)\b(?:\s+(\d{1,2})(?:st|nd|rd|th)?\b)?(?:,?\s+(\d{4})\b)?`)
)

// namedPeriods returns the months and days that text names.
func namedPeriods(text string) []namedPeriod {
	var out []namedPeriod
	for _, m := range dateRE.FindAllStringSubmatch(text, 4) {
		p := namedPeriod{month: monthNames[m[2]]}
		day := m[1]
		if day == "" {
			day = m[3]
		}
		p.day, _ = strconv.Atoi(day)
		p.year, _ = strconv.Atoi(m[4])
		if p.day > 31 {
			p.day = 0
		}
		if (m[2] == "May" || m[2] == "March") && p.day == 0 && p.year == 0 {
			continue // a verb as likely as a month
		}
		out = append(out, p)
	}
	return out
}

// inNamedPeriod reports whether t falls within any of periods.
func inNamedPeriod(t time.Time, periods []namedPeriod) bool {
	for _, p := range periods {
		if p.contains(t) {
			return true
		}
	}
	return false
}
