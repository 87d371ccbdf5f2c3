package core

import (
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/ada-chat/ada/core/when"
)

// A prompt that names a time asks about what was said then: the relevant
// turns of that time rank above others (see rankRecall). A time is named
// by a date ("in June", "on 13 October 2023", "in December 2023") or
// relative to when the prompt is asked ("last week", "yesterday", "two
// months ago"). A turn is of that time when it was written then, or when
// it mentions that time itself ("yesterday", written the day after): the
// times a turn mentions are resolved against its own time when it is
// stored (TimeMention). Only English month names are read, capitalised as
// dates are written; "May" and "March" count only next to a day or a
// year, since they are also words. A year alone names too much to tell
// turns apart.

// TimeMention is a time a stored turn mentions, resolved against the
// turn's own time in its time zone: [Start, End) (a day, week, weekend,
// month or year) and the words that said it.
type TimeMention struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Text  string    `json:"text"`
}

// maxMentions bounds the times kept with one document.
const maxMentions = 8

// mentionedTimes resolves the times text mentions against at, in loc (UTC
// when nil).
func mentionedTimes(text string, at time.Time, loc *time.Location) []TimeMention {
	if loc == nil {
		loc = time.UTC
	}
	var out []TimeMention
	for _, s := range when.New(when.English).Find(text, at.In(loc)) {
		if len(out) == maxMentions {
			break
		}
		out = append(out, TimeMention{Start: s.Start, End: s.End, Text: s.Text})
	}
	return out
}

// namedPeriod is a time a text names: a month, optionally of a year and
// a day (0 = any).
type namedPeriod struct {
	year  int
	month time.Month
	day   int
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

// in returns p in year y as an interval of civil dates (UTC midnights).
func (p namedPeriod) in(y int) (time.Time, time.Time) {
	if p.year != 0 {
		y = p.year
	}
	if p.day != 0 {
		start := time.Date(y, p.month, p.day, 0, 0, 0, 0, time.UTC)
		return start, start.AddDate(0, 0, 1)
	}
	start := time.Date(y, p.month, 1, 0, 0, 0, 0, time.UTC)
	return start, start.AddDate(0, 1, 0)
}

// askedTimes are the times a prompt names: dates, and relative times
// resolved against when it is asked.
type askedTimes struct {
	named    []namedPeriod
	relative []when.Span
}

// timesAsked reads the times query names, asked at at in loc (UTC when nil).
func timesAsked(query string, at time.Time, loc *time.Location) askedTimes {
	if loc == nil {
		loc = time.UTC
	}
	return askedTimes{named: namedPeriods(query), relative: when.New(when.English).Find(query, at.In(loc))}
}

func (a askedTimes) empty() bool { return len(a.named) == 0 && len(a.relative) == 0 }

// match says why d is of a time the prompt names ("" when it is not):
// it was written then, or it mentions a time that overlaps.
func (a askedTimes) match(d Document) string {
	// The turn's own time, a moment: its day in UTC (the store's zone).
	own := d.Meta.Timestamp.UTC()
	day := civil(own)
	for _, p := range a.named {
		if s, e := p.in(own.Year()); !day.Before(s) && day.Before(e) {
			return fmt.Sprintf("written on %s, in the time the prompt names (%s)", own.Format(time.DateOnly), p)
		}
	}
	for _, q := range a.relative {
		if !own.Before(q.Start) && own.Before(q.End) {
			return fmt.Sprintf("written on %s, in the prompt's %q (%s)", own.Format(time.DateOnly), q.Text, spanDates(q.Start, q.End))
		}
	}
	for _, m := range d.Meta.Times {
		ms, me := civil(m.Start), civil(m.End)
		for _, p := range a.named {
			for y := ms.Year(); y <= me.Year(); y++ {
				if s, e := p.in(y); ms.Before(e) && s.Before(me) {
					return fmt.Sprintf("says %q (%s), in the time the prompt names (%s)", m.Text, spanDates(m.Start, m.End), p)
				}
			}
		}
		for _, q := range a.relative {
			if m.Start.Before(q.End) && q.Start.Before(m.End) {
				return fmt.Sprintf("says %q (%s), overlapping the prompt's %q (%s)", m.Text, spanDates(m.Start, m.End), q.Text, spanDates(q.Start, q.End))
			}
		}
	}
	return ""
}

// civil is t's calendar date in its own location, as a UTC midnight, so
// that dates of different zones compare as dates.
func civil(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// spanDates shows [start, end) as its first and last dates.
func spanDates(start, end time.Time) string {
	last := end.AddDate(0, 0, -1)
	if !last.After(start) {
		return start.Format(time.DateOnly)
	}
	return start.Format(time.DateOnly) + " to " + last.Format(time.DateOnly)
}

func (p namedPeriod) String() string {
	s := p.month.String()
	if p.day != 0 {
		s = strconv.Itoa(p.day) + " " + s
	}
	if p.year != 0 {
		s += " " + strconv.Itoa(p.year)
	}
	return s
}
