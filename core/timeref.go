package core

import (
	"fmt"
	"time"

	"github.com/ada-chat/ada/core/when"
)

// A prompt that names a time asks about what was said then: the relevant
// turns and memories of that time rank above others (see rankRecall and
// memoryTimeBonuses). A time is named by a date ("in June", "on 13 October
// 2023", "14/05", "2023-05-14", "Christmas") or relative to when the
// prompt is asked ("last week", "yesterday", "two months ago"); one
// reader, core/when with its language table, reads both, in turns and
// prompts alike. A turn is of that time when it was written then, or when
// it mentions that time itself ("yesterday" written the day after, or "on
// 13 October"): the times a turn mentions are resolved against its own
// time when it is stored (TimeMention), a date without its year taking
// the nearest. A date a prompt names without its year is that date of
// any year. A year alone names too much to tell turns apart.

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

// askedTimes are the times a prompt names, dates and relative times,
// resolved against when it is asked, and whether it asks for a time.
type askedTimes struct {
	spans []when.Span
	// asksWhen: the prompt asks for a time ("when did …?") and names
	// none (see askedWhenWeight).
	asksWhen bool
}

// timesAsked reads the times query names, asked at at in loc (UTC when nil).
func timesAsked(query string, at time.Time, loc *time.Location) askedTimes {
	if loc == nil {
		loc = time.UTC
	}
	r := when.New(when.English)
	a := askedTimes{spans: r.Find(query, at.In(loc))}
	a.asksWhen = len(a.spans) == 0 && r.AsksWhen(query)
	return a
}

// empty: the prompt names no time.
func (a askedTimes) empty() bool { return len(a.spans) == 0 }

// match says why d is of a time the prompt names ("" when it is not):
// it was written then, or it mentions a time that overlaps. A date the
// prompt names without its year ("in June") is that date of any year.
func (a askedTimes) match(d Document) string {
	// The turn's own time, a moment: its day in UTC (the store's zone).
	own := d.Meta.Timestamp.UTC()
	day := civil(own)
	for _, q := range a.spans {
		written := !own.Before(q.Start) && own.Before(q.End)
		if q.AnyYear {
			s, e := inYear(q, own.Year())
			written = !day.Before(s) && day.Before(e)
		}
		if written {
			return fmt.Sprintf("written on %s, in the prompt's %q (%s)", own.Format(time.DateOnly), q.Text, askedDates(q))
		}
	}
	for _, m := range d.Meta.Times {
		for _, q := range a.spans {
			overlap := m.Start.Before(q.End) && q.Start.Before(m.End)
			if q.AnyYear {
				ms, me := civil(m.Start), civil(m.End)
				for y := ms.Year(); y <= me.Year() && !overlap; y++ {
					s, e := inYear(q, y)
					overlap = ms.Before(e) && s.Before(me)
				}
			}
			if overlap {
				return fmt.Sprintf("says %q (%s), overlapping the prompt's %q (%s)", m.Text, spanDates(m.Start, m.End), q.Text, askedDates(q))
			}
		}
	}
	return ""
}

// inYear is the civil dates of q (a date named without its year) in year y.
func inYear(q when.Span, y int) (time.Time, time.Time) {
	s, e := civil(q.Start), civil(q.End)
	shift := y - s.Year()
	return s.AddDate(shift, 0, 0), e.AddDate(shift, 0, 0)
}

// askedDates shows a time the prompt names: its dates, or for a date
// without a year its month and day in any year.
func askedDates(q when.Span) string {
	if !q.AnyYear {
		return spanDates(q.Start, q.End)
	}
	if last := q.End.AddDate(0, 0, -1); last.After(q.Start) && q.Start.Day() == 1 && last.Month() == q.Start.Month() {
		return q.Start.Format("January") + ", any year"
	}
	return spanIn(q.Start, q.End, "2 January", "") + ", any year"
}

// civil is t's calendar date in its own location, as a UTC midnight, so
// that dates of different zones compare as dates.
func civil(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// spanDates shows [start, end) as its first and last dates.
func spanDates(start, end time.Time) string { return spanIn(start, end, time.DateOnly, "") }

// spanIn shows [start, end) in layout: a day by itself, a longer span as
// from, its first day, " to " and its last day.
func spanIn(start, end time.Time, layout, from string) string {
	last := end.AddDate(0, 0, -1)
	if !last.After(start) {
		return start.Format(layout)
	}
	return from + start.Format(layout) + " to " + last.Format(layout)
}
