package when

import (
	"slices"
	"strings"
	"time"
)

// date reads a date named at toks[i]: ISO ("2023-05-14"), numeric
// ("14/05", "14/05/2023"), a day and a month in either order ("13
// October", "13th of October", "October 13th"), a month and a year ("May
// 2023"), a month alone ("June"), or a named date ("Christmas"); a year
// may follow each. It returns the day or month it means, in ref's
// location, and how many tokens it took (0: none here). A date without a
// year is the one nearest ref, marked AnyYear.
func (r *Resolver) date(toks []token, i int, ref time.Time) (Span, int) {
	if i >= len(toks) {
		return Span{}, 0
	}
	w := func(k int) string {
		if i+k < len(toks) {
			return toks[i+k].w
		}
		return ""
	}
	first := w(0)
	if first == "" {
		return Span{}, 0
	}
	if c := first[0]; c >= '0' && c <= '9' {
		if s, ok := isoDate(first, ref.Location()); ok {
			return s, 1
		}
		if y, m, d, ok := r.numericDate(first); ok {
			return r.dated(ref, y, m, d), 1
		}
		// <day> [of] <month> [year]
		d, ok := r.dayNumber(first)
		if !ok {
			return Span{}, 0
		}
		k := 1
		if slices.Contains(r.l.Of, w(k)) {
			k++
		}
		m, ok := r.l.Months[w(k)]
		if !ok {
			return Span{}, 0
		}
		y, n := year(w(k + 1))
		if !validDay(y, m, d) {
			return Span{}, 0
		}
		return r.dated(ref, y, m, d), k + 1 + n
	}
	if m, ok := r.l.Months[first]; ok {
		word := slices.Contains(r.l.MonthWords, first)
		written := toks[i].upper || !r.l.MonthsCapitalised
		// <month> <day> [year]: a month that is also a word only as
		// written as a month.
		if d, ok := r.dayNumber(w(1)); ok && (written || !word) {
			y, n := year(w(2))
			if validDay(y, m, d) {
				return r.dated(ref, y, m, d), 2 + n
			}
		}
		if y, n := year(w(1)); n == 1 {
			return r.dated(ref, y, m, 0), 2
		}
		if written && !word {
			return r.dated(ref, 0, m, 0), 1
		}
		return Span{}, 0
	}
	for _, nd := range r.l.Named {
		if first[0] == nd.Words[0][0] && r.words(toks, i, nd.Words) {
			y, n := year(w(len(nd.Words)))
			return r.dated(ref, y, nd.Month, nd.Day), len(nd.Words) + n
		}
	}
	return Span{}, 0
}

// words reports whether toks from i are words (a typographic apostrophe
// counts as a straight one).
func (r *Resolver) words(toks []token, i int, words []string) bool {
	if i+len(words) > len(toks) {
		return false
	}
	for k, want := range words {
		got := toks[i+k].w
		if got != want && (len(got) != len(want)+2 || strings.Replace(got, "’", "'", 1) != want) {
			return false
		}
	}
	return true
}

// dated is day d of month m of year y in ref's location (the whole month
// when d is 0). Without a year (y 0) it is the one nearest ref, marked
// AnyYear.
func (r *Resolver) dated(ref time.Time, y int, m time.Month, d int) Span {
	loc := ref.Location()
	span := func(y int) Span {
		if d == 0 {
			start := time.Date(y, m, 1, 0, 0, 0, 0, loc)
			return Span{Start: start, End: start.AddDate(0, 1, 0)}
		}
		start := time.Date(y, m, d, 0, 0, 0, 0, loc)
		return Span{Start: start, End: start.AddDate(0, 0, 1)}
	}
	if y != 0 {
		return span(y)
	}
	best, far := Span{}, time.Duration(-1)
	for y := ref.Year() - 4; y <= ref.Year()+4; y++ { // 29 February is in one of them
		if d != 0 && !validDay(y, m, d) {
			continue // 29 February of a common year
		}
		s := span(y)
		var dist time.Duration
		switch {
		case ref.Before(s.Start):
			dist = s.Start.Sub(ref)
		case !ref.Before(s.End):
			dist = ref.Sub(s.End)
		}
		if far < 0 || dist < far {
			best, far = s, dist
		}
	}
	best.AnyYear = true
	return best
}

// monthOf is the month a direction gives a month name ("last June": the
// latest June before ref's month, "next June" the first after, "this
// June", dir 2, ref's year's).
func monthOf(ref time.Time, m time.Month, dir int) Span {
	y := ref.Year()
	switch {
	case dir == -1 && m >= ref.Month():
		y--
	case dir == 1 && m <= ref.Month():
		y++
	}
	start := time.Date(y, m, 1, 0, 0, 0, 0, ref.Location())
	return Span{Start: start, End: start.AddDate(0, 1, 0)}
}

// isoDate reads "2023-05-14", alone or starting an ISO date-time.
func isoDate(w string, loc *time.Location) (Span, bool) {
	if len(w) < 10 || w[4] != '-' || w[7] != '-' || (len(w) > 10 && w[10] != 't') {
		return Span{}, false
	}
	t, err := time.ParseInLocation(time.DateOnly, w[:10], loc)
	if err != nil {
		return Span{}, false
	}
	return Span{Start: t, End: t.AddDate(0, 0, 1)}, true
}

// numericDate reads "14/05", "14/05/2023" or "5/14/23". Without a year
// both numbers need two digits, so that fractions and "24/7" are not
// dates. The day comes first when Lang.DayFirst, unless only the other
// number can be a day. y is 0 without a year.
func (r *Resolver) numericDate(w string) (y int, m time.Month, d int, ok bool) {
	parts := strings.Split(w, "/")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, 0, 0, false
	}
	var n [3]int
	for k, p := range parts {
		v, ok := number(p)
		if !ok || len(p) > 4 || (k < 2 && len(p) > 2) {
			return 0, 0, 0, false
		}
		n[k] = v
	}
	if len(parts) == 2 && (len(parts[0]) != 2 || len(parts[1]) != 2) {
		return 0, 0, 0, false
	}
	if len(parts) == 3 {
		switch len(parts[2]) {
		case 2:
			y = 2000 + n[2]
		case 4:
			y = n[2]
		default:
			return 0, 0, 0, false
		}
	}
	a, b := n[0], n[1]
	switch {
	case a > 12 && b <= 12:
		d, m = a, time.Month(b)
	case b > 12 && a <= 12:
		d, m = b, time.Month(a)
	case a <= 12 && b <= 12 && r.l.DayFirst:
		d, m = a, time.Month(b)
	case a <= 12 && b <= 12:
		d, m = b, time.Month(a)
	default:
		return 0, 0, 0, false
	}
	return y, m, d, m >= 1 && validDay(y, m, d)
}

// dayNumber reads a day of a month: "13" or "13th".
func (r *Resolver) dayNumber(w string) (int, bool) {
	for _, suffix := range r.l.Ordinals {
		if s, ok := strings.CutSuffix(w, suffix); ok {
			w = s
			break
		}
	}
	if len(w) == 0 || len(w) > 2 {
		return 0, false
	}
	d, ok := number(w)
	return d, ok && d >= 1 && d <= 31
}

// year reads a year after a date ("2023"), returning it and 1, or 0 and 0.
func year(w string) (int, int) {
	if len(w) != 4 {
		return 0, 0
	}
	y, ok := number(w)
	if !ok || y < 1900 || y > 2199 {
		return 0, 0
	}
	return y, 1
}

// validDay reports whether month m has a day d (in year y; any year,
// leap years included, when y is 0).
func validDay(y int, m time.Month, d int) bool {
	if d < 1 {
		return false
	}
	if y == 0 {
		y = 2024
	}
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Month() == m
}

// number reads a word of ASCII digits. Find tries every word as a number:
// strconv's error for a word that is none allocated most of its memory.
func number(w string) (int, bool) {
	if w == "" || len(w) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return 0, false
		}
		n = 10*n + int(w[i]-'0')
	}
	return n, true
}

// AsksWhen reports whether text asks for a time: it starts with one of
// Lang.AskWhen ("When did we …?") or holds one of Lang.AskWhenPhrases ("On
// what date …?"). A question's "when" later on ("what did she say when
// …") asks for no time.
func (r *Resolver) AsksWhen(text string) bool {
	toks := r.tokens(text, -1)
	if len(toks) > 0 && slices.Contains(r.l.AskWhen, toks[0].w) {
		return true
	}
	for i := range toks {
		for _, p := range r.l.AskWhenPhrases {
			if r.words(toks, i, p) {
				return true
			}
		}
	}
	return false
}
