package when

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTokensCutAsRegexp: words are cut where the regexp \S+ cut them, on
// ASCII white space only, whatever the text holds.
func TestTokensCutAsRegexp(t *testing.T) {
	wordRE := regexp.MustCompile(`\S+`)
	r := New(English)
	for _, text := range []string{"", "   ", "yesterday", "  on Friday,\tat 9am\r\nlast\fweek ",
		"no\u00a0break\u2003em\vvertical", "bad \xff\xfe utf8 \xc3", "(\"last week\")!", "İstanbul  TOMORROW."} {
		for _, limit := range []int{-1, 0, 1, 3} {
			var want []token
			for _, loc := range wordRE.FindAllStringIndex(text, limit) {
				want = append(want, r.tokens(text[loc[0]:loc[1]], -1)[0])
				want[len(want)-1].start += loc[0]
				want[len(want)-1].end += loc[0]
			}
			if got := r.tokens(text, limit); !slices.Equal(got, want) {
				t.Errorf("tokens(%q, %d) = %v, want %v", text, limit, got, want)
			}
		}
	}
}

// BenchmarkFind is what reading the times of one stored turn costs: Find
// runs on every turn stored and every prompt. One op is a 2 KB answer.
func BenchmarkFind(b *testing.B) {
	text := strings.Repeat("Yesterday we talked about the trip to Lisbon next month, and I said I would book the hotel in three days. ", 20)
	at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	r := New(English)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		r.Find(text, at)
	}
}
