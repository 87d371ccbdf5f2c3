package when

import (
	"slices"
	"time"
)

// Period is a calendar period a message can name relative to its time
// ("last week", "next month", "two years ago").
type Period int

const (
	Week Period = iota + 1
	Weekend
	Month
	Year
)

// Find returns the times text mentions anywhere in it, each resolved
// against ref in ref's location into the span it means: a day, a week
// (from Lang.WeekStart), a weekend, a month or a year. It reads what people
// write about the past and the future alike ("yesterday", "last Saturday",
// "two weeks ago", "next month", "in three days", "tonight"). A weekday
// without a direction ("on Friday") could be either side of ref: it yields
// the one before and the one after (today when it is today). Moments ("at
// 9") mean their day. Find is for remembering what a message meant; Prefix
// reads a reminder's time.
func (r *Resolver) Find(text string, ref time.Time) []Span {
	toks := r.tokens(text, -1)
	midnight := dateAt(ref, 0, 0) // once: time.Date cost a tenth of Find when per word
	var out []Span
	for i := 0; i < len(toks); {
		spans, n := r.mention(toks, i, ref, midnight)
		if n == 0 {
			i++
			continue
		}
		first, last := toks[i], toks[i+n-1]
		for _, s := range spans {
			if !s.writable() {
				continue
			}
			s.Text = text[first.start:last.end]
			out = append(out, s)
		}
		i += n
	}
	return out
}

// mention reads one time mention at toks[i] and returns its spans and how
// many tokens it took (0: none here). midnight starts ref's day.
func (r *Resolver) mention(toks []token, i int, ref, midnight time.Time) ([]Span, int) {
	l := r.l
	w := func(k int) string {
		if i+k < len(toks) {
			return toks[i+k].w
		}
		return ""
	}
	day := func(t time.Time) Span { return Span{Start: t, End: t.AddDate(0, 0, 1)} }
	on := 0
	if slices.Contains(l.On, w(0)) {
		on = 1
	}
	if s, n := r.date(toks, i+on, ref); n > 0 {
		return []Span{s}, on + n
	}
	if slices.Contains(l.Tonight, w(on)) {
		return []Span{day(midnight)}, on + 1
	}
	// today, tomorrow, yesterday [morning|night…]
	if off, ok := l.Days[w(on)]; ok {
		n := on + 1
		if slices.Contains(l.DayParts, w(n)) {
			n++
		}
		return []Span{day(midnight.AddDate(0, 0, off))}, n
	}
	dir := 0
	switch {
	case slices.Contains(l.Last, w(on)):
		dir = -1
	case slices.Contains(l.Next, w(on)):
		dir = 1
	case slices.Contains(l.This, w(on)):
		dir = 2 // the current one
	}
	if dir != 0 {
		x := w(on + 1)
		if wd, ok := l.Weekdays[x]; ok {
			return []Span{day(weekday(midnight, wd, dir))}, on + 2
		}
		if m, ok := l.Months[x]; ok {
			return []Span{monthOf(ref, m, dir)}, on + 2
		}
		if slices.Contains(l.DayParts, x) {
			if dir == -1 { // "last night": the evening before
				return []Span{day(midnight.AddDate(0, 0, -1))}, on + 2
			}
			if dir == 2 {
				return []Span{day(midnight)}, on + 2
			}
		}
		if p, ok := l.Periods[x]; ok {
			step := dir
			if dir == 2 {
				step = 0
			}
			return []Span{r.period(midnight, p, step)}, on + 2
		}
		return nil, 0
	}
	// [on] <weekday>: the one before and the one after
	if wd, ok := l.Weekdays[w(on)]; ok && (on == 1 || len(w(on)) > 3) {
		if wd == ref.Weekday() {
			return []Span{day(midnight)}, on + 1
		}
		return []Span{day(weekday(midnight, wd, -1)), day(weekday(midnight, wd, 1))}, on + 1
	}
	// <count> <unit> ago, in <count> <unit>
	if slices.Contains(l.In, w(0)) {
		if count, k, ok := r.quantity(toks, i+1); ok {
			if s, ok := r.shift(ref, midnight, count, w(1+k)); ok {
				return []Span{s}, k + 2
			}
		}
		return nil, 0
	}
	if count, k, ok := r.quantity(toks, i); ok && slices.Contains(l.Ago, w(k+1)) {
		if s, ok := r.shift(ref, midnight, -count, w(k)); ok {
			return []Span{s}, k + 2
		}
	}
	return nil, 0
}

// quantity reads a count ("two", "3", "a few", "a couple of") at toks[i]
// and returns it with how many tokens it took; the unit follows.
func (r *Resolver) quantity(toks []token, i int) (int, int, bool) {
	w := func(k int) string {
		if i+k < len(toks) {
			return toks[i+k].w
		}
		return ""
	}
	if n, ok := r.l.Vague[w(0)]; ok {
		k := 1
		if slices.Contains(r.l.Of, w(k)) {
			k++
		}
		return n, k, true
	}
	if slices.Contains(r.l.Articles, w(0)) {
		if n, ok := r.l.Vague[w(1)]; ok {
			k := 2
			if slices.Contains(r.l.Of, w(k)) {
				k++
			}
			return n, k, true
		}
	}
	if n, ok := r.count(w(0)); ok {
		return n, 1, true
	}
	return 0, 0, false
}

// shift is the span count units from ref: the day for hours and days, the
// week, month or year for those.
func (r *Resolver) shift(ref, midnight time.Time, count int, unit string) (Span, bool) {
	if u, ok := r.l.Units[unit]; ok {
		if u.Days == 7 {
			return r.period(midnight.AddDate(0, 0, 7*count), Week, 0), true
		}
		t := dateAt(ref.Add(time.Duration(count)*u.Fixed), 0, 0)
		if u.Days > 0 {
			t = midnight.AddDate(0, 0, count*u.Days)
		}
		return Span{Start: t, End: t.AddDate(0, 0, 1)}, true
	}
	if p, ok := r.l.Periods[unit]; ok && p != Weekend {
		return r.period(midnight, p, count), true
	}
	return Span{}, false
}

// period is the week, weekend, month or year containing midnight, moved by
// step of them.
func (r *Resolver) period(midnight time.Time, p Period, step int) Span {
	y, m, _ := midnight.Date()
	loc := midnight.Location()
	switch p {
	case Month:
		start := time.Date(y, m+time.Month(step), 1, 0, 0, 0, 0, loc)
		return Span{Start: start, End: start.AddDate(0, 1, 0)}
	case Year:
		start := time.Date(y+step, 1, 1, 0, 0, 0, 0, loc)
		return Span{Start: start, End: start.AddDate(1, 0, 0)}
	case Weekend:
		// The Saturday of this week (Monday to Sunday's), moved by step weeks.
		sat := midnight.AddDate(0, 0, (int(time.Saturday)-int(midnight.Weekday())+7)%7)
		if midnight.Weekday() == time.Sunday {
			sat = midnight.AddDate(0, 0, -1)
		}
		sat = sat.AddDate(0, 0, 7*step)
		return Span{Start: sat, End: sat.AddDate(0, 0, 2)}
	}
	back := (int(midnight.Weekday()) - int(r.l.WeekStart) + 7) % 7
	start := midnight.AddDate(0, 0, 7*step-back)
	return Span{Start: start, End: start.AddDate(0, 0, 7)}
}

// weekday is the midnight of the day wd before (dir −1) or after (dir 1)
// midnight's day, never that day itself; dir 2 ("this Friday") is the one
// of the coming seven days, today included.
func weekday(midnight time.Time, wd time.Weekday, dir int) time.Time {
	ahead := (int(wd) - int(midnight.Weekday()) + 7) % 7
	switch dir {
	case -1:
		back := (int(midnight.Weekday()) - int(wd) + 7) % 7
		if back == 0 {
			back = 7
		}
		return midnight.AddDate(0, 0, -back)
	case 1:
		if ahead == 0 {
			ahead = 7
		}
	}
	return midnight.AddDate(0, 0, ahead)
}
