package when

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Span is the time a phrase means: [Start, End). A day is its midnight to
// the next; a moment ("in 10 minutes", "tomorrow at 9") has End == Start.
// Text is the phrase as written.
type Span struct {
	Start, End time.Time
	Text       string
	// Clock says the phrase fixed a moment (a time of day, or a duration
	// from the reference), not only a day.
	Clock bool
	// AnyYear says a date was named without its year ("13 October",
	// "in June"): Start and End are those of the one nearest the
	// reference, and a reader may take it in any year.
	AnyYear bool
}

// Storable says t lies within the years that times are stored and shown
// in, in UTC and in its own zone: JSON holds the years 0 to 9999 only, and
// the year 1 leaves room for a zone west of UTC. The API refuses a time
// outside them, and the date reader finds none there ("two years ago"
// said in the year 1 means no date).
func Storable(t time.Time) bool {
	in := func(t time.Time) bool { return t.Year() >= 1 && t.Year() <= 9999 }
	return in(t) && in(t.UTC())
}

// writable says s lies within the years times are stored in (Storable).
func (s Span) writable() bool { return Storable(s.Start) && Storable(s.End) }

// Resolver reads the phrases of one language.
type Resolver struct{ l Lang }

// New returns a resolver for the language table l.
func New(l Lang) *Resolver { return &Resolver{l: l} }

// token is one whitespace-separated word: its normalised form, where it
// starts and ends in the text, and whether it was written capitalised.
type token struct {
	w          string
	start, end int
	upper      bool
}

// tokens reads the first limit words of text (all when limit < 0). Find
// reads every stored turn, so words are cut by hand: a regexp took half
// of its time.
func (r *Resolver) tokens(text string, limit int) []token {
	var out []token
	for i := 0; i < len(text) && (limit < 0 || len(out) < limit); {
		if isSpace(text[i]) {
			i++
			continue
		}
		start, end := i, i
		for end < len(text) && !isSpace(text[end]) {
			end++
		}
		i = end
		w := strings.ToLower(text[start:end])
		if trimmed := strings.TrimLeft(w, "(\"'"); len(trimmed) < len(w) {
			start += len(w) - len(trimmed)
			w = trimmed
		}
		if !slices.Contains(r.l.AM, w) && !slices.Contains(r.l.PM, w) {
			trimmed := strings.TrimRight(w, ",;:.!?")
			end -= len(w) - len(trimmed)
			w = trimmed
		}
		out = append(out, token{w: w, start: start, end: end, upper: upper(text[start:])})
	}
	return out
}

// upper reports whether s starts with a capital letter; an empty s (a
// word of nothing, an opening quote ending the text) does not.
func upper(s string) bool {
	if s == "" {
		return false
	}
	if s[0] < utf8.RuneSelf {
		return s[0] >= 'A' && s[0] <= 'Z'
	}
	c, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(c)
}

// isSpace reports whether b separates words: ASCII white space, as
// regexp's \s (no byte of a multi-byte UTF-8 rune is one).
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

// Prefix resolves the time phrase that text starts with against ref, in
// ref's location, and returns it with the rest of text. ok is false when
// text starts with no time phrase. Phrases without a direction mean the
// future: "at 9" when it is 10 is tomorrow at 9, "on Friday" on a Friday is
// the next one unless its time of day is still to come.
func (r *Resolver) Prefix(text string, ref time.Time) (span Span, rest string, ok bool) {
	toks := r.tokens(text, 12)
	p := parser{r: r, toks: toks, ref: ref}
	n, ok := p.phrase()
	if !ok || n == 0 || !p.span.writable() {
		return Span{}, text, false
	}
	end := toks[n-1].end
	span = p.span
	span.Text = strings.TrimSpace(text[:end])
	rest = strings.TrimLeft(text[end:], " \t\n,;:.")
	return span, rest, true
}

// Resolve resolves a text that is a time phrase and nothing else.
func (r *Resolver) Resolve(text string, ref time.Time) (Span, bool) {
	span, rest, ok := r.Prefix(text, ref)
	return span, ok && strings.TrimSpace(rest) == ""
}

// parser walks the tokens once; span is what it found.
type parser struct {
	r    *Resolver
	toks []token
	ref  time.Time
	span Span
}

func (p *parser) word(i int) string {
	if i < len(p.toks) {
		return p.toks[i].w
	}
	return ""
}

// phrase reads one phrase and returns how many tokens it took.
func (p *parser) phrase() (int, bool) {
	if n, ok := p.duration(0); ok {
		return n, true
	}
	if n, ok := p.instant(0); ok {
		return n, true
	}
	// A day, then maybe its time; or a time, then maybe its day.
	if day, n, ok := p.day(0); ok {
		if h, m, k, ok := p.clock(n); ok {
			p.at(day, h, m)
			return n + k, true
		}
		p.whole(day)
		return n, true
	}
	if h, m, n, ok := p.clock(0); ok {
		if day, k, ok := p.day(n); ok {
			p.at(day, h, m)
			return n + k, true
		}
		today := p.ref
		if t := dateAt(today, h, m); !t.After(p.ref) {
			today = today.AddDate(0, 0, 1)
		}
		p.at(today, h, m)
		return n, true
	}
	return 0, false
}

// duration is "in <count> <unit>".
func (p *parser) duration(i int) (int, bool) {
	if !slices.Contains(p.r.l.In, p.word(i)) {
		return 0, false
	}
	count, ok := p.r.count(p.word(i + 1))
	if !ok {
		return 0, false
	}
	u, ok := p.r.l.Units[p.word(i+2)]
	if !ok {
		return 0, false
	}
	t := p.ref.Add(time.Duration(count) * u.Fixed)
	if u.Days > 0 {
		t = p.ref.AddDate(0, 0, count*u.Days)
	}
	p.span = Span{Start: t, End: t, Clock: true}
	return 3, true
}

// instant is an ISO date and time in one word (2026-12-01T14:30, with
// seconds, Z or an offset optional), in the reference's location when it
// names no offset.
func (p *parser) instant(i int) (int, bool) {
	w := strings.ToUpper(p.word(i))
	if !strings.Contains(w, "T") {
		return 0, false
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, w); err == nil {
			t = t.In(p.ref.Location())
			p.span = Span{Start: t, End: t, Clock: true}
			return 1, true
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(layout, w, p.ref.Location()); err == nil {
			p.span = Span{Start: t, End: t, Clock: true}
			return 1, true
		}
	}
	return 0, false
}

// day is "[on] today|tomorrow|<weekday>|<date>": the day's midnight.
// A weekday is the next one, today included only if a time of day follows
// that is still to come.
func (p *parser) day(i int) (time.Time, int, bool) {
	n := 0
	if slices.Contains(p.r.l.On, p.word(i)) {
		n = 1
	}
	w := p.word(i + n)
	midnight := dateAt(p.ref, 0, 0)
	if off, ok := p.r.l.Days[w]; ok {
		return midnight.AddDate(0, 0, off), n + 1, true
	}
	if wd, ok := p.r.l.Weekdays[w]; ok {
		ahead := (int(wd) - int(p.ref.Weekday()) + 7) % 7
		if ahead == 0 {
			if h, m, _, ok := p.clock(i + n + 1); !ok || !dateAt(p.ref, h, m).After(p.ref) {
				ahead = 7
			}
		}
		return midnight.AddDate(0, 0, ahead), n + 1, true
	}
	// A date ("13 October", "14/05/2027", "Christmas"): without its year
	// the next one, today included.
	if len(w) > 10 && w[4] == '-' {
		return time.Time{}, 0, false // a date-time that instant refused
	}
	if s, k := p.r.date(p.toks, i+n, p.ref); k > 0 && s.End.Equal(s.Start.AddDate(0, 0, 1)) {
		for y, m, d := s.Start.Date(); s.AnyYear && s.Start.Before(midnight); y++ {
			s.Start = time.Date(y+1, m, d, 0, 0, 0, 0, s.Start.Location())
		}
		return s.Start, n + k, true
	}
	return time.Time{}, 0, false
}

// clock is a time of day: "[at] 14:30", "at 9", "9am", "9:30 pm", "noon".
// A bare number needs "at" before it or am/pm after it.
func (p *parser) clock(i int) (h, m, n int, ok bool) {
	at := slices.Contains(p.r.l.At, p.word(i))
	if at {
		n = 1
	}
	w := p.word(i + n)
	switch {
	case slices.Contains(p.r.l.Noon, w):
		return 12, 0, n + 1, true
	case slices.Contains(p.r.l.Midnight, w):
		return 0, 0, n + 1, true
	}
	num, suffix := splitClock(w)
	if num == "" {
		return 0, 0, 0, false
	}
	used := n + 1
	half := p.r.half(suffix) // 12-hour clock: 1 = am, 2 = pm
	switch {
	case suffix != "" && half == 0:
		return 0, 0, 0, false // "9x": not a time
	case suffix == "" && p.r.half(p.word(i+n+1)) != 0:
		half = p.r.half(p.word(i + n + 1))
		used++
	}
	h, m, ok = hourMinute(num)
	if !ok || (!at && half == 0 && !strings.Contains(num, ":")) {
		return 0, 0, 0, false
	}
	if half != 0 {
		if h < 1 || h > 12 {
			return 0, 0, 0, false
		}
		h %= 12
		if half == 2 {
			h += 12
		}
	}
	return h, m, used, true
}

// half is 1 for an am word, 2 for a pm word, else 0.
func (r *Resolver) half(w string) int {
	switch {
	case slices.Contains(r.l.AM, w):
		return 1
	case slices.Contains(r.l.PM, w):
		return 2
	}
	return 0
}

var clockRE = regexp.MustCompile(`^(\d{1,2}(?::\d{2}){0,2})([a-z.]*)$`)

// splitClock splits "9:30pm" into "9:30" and "pm".
func splitClock(w string) (num, suffix string) {
	m := clockRE.FindStringSubmatch(w)
	if m == nil {
		return "", ""
	}
	return m[1], m[2]
}

// hourMinute reads "9", "14:30" or "14:30:00".
func hourMinute(s string) (h, m int, ok bool) {
	parts := strings.Split(s, ":")
	h, err := strconv.Atoi(parts[0])
	if err != nil || h > 23 {
		return 0, 0, false
	}
	if len(parts) > 1 {
		if m, err = strconv.Atoi(parts[1]); err != nil || m > 59 {
			return 0, 0, false
		}
	}
	if len(parts) > 2 {
		if s, err := strconv.Atoi(parts[2]); err != nil || s != 0 {
			return 0, 0, false // seconds of a time of day: only :00
		}
	}
	return h, m, true
}

// count is a number in digits or words.
func (r *Resolver) count(w string) (int, bool) {
	if n, ok := r.l.Numbers[w]; ok {
		return n, true
	}
	n, ok := number(w)
	if !ok || n > 100000 {
		return 0, false
	}
	return n, true
}

func (p *parser) at(day time.Time, h, m int) {
	t := dateAt(day, h, m)
	p.span = Span{Start: t, End: t, Clock: true}
}

func (p *parser) whole(day time.Time) {
	p.span = Span{Start: day, End: day.AddDate(0, 0, 1)}
}

// dateAt is t's calendar day at h:m, in t's location. A time that a DST
// change skips moves forward by the gap, as time.Date does.
func dateAt(t time.Time, h, m int) time.Time {
	y, mo, d := t.Date()
	return time.Date(y, mo, d, h, m, 0, 0, t.Location())
}
