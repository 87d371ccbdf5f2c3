package chroma

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// BenchmarkTermCacheWritten is what a chat's write of its two turns costs
// the term cache, under the lock its keyword searches take, when it holds
// termCacheMax remembered lists (a store searched for an hour with
// varied words).
//
//	go test -run '^$' -bench TermCacheWritten ./storage/chroma
func BenchmarkTermCacheWritten(b *testing.B) {
	c := &termCache{verdicts: map[string]termVerdict{}, clauses: map[string][]core.Cond{}}
	now := time.Now()
	for i := range termCacheMax {
		st := fmt.Sprintf("word%d", i)
		c.verdicts[wholeStore+" "+st] = termVerdict{scope: wholeStore, stem: st, ids: []string{core.NewDocID()},
			until: now.Add(time.Hour), idsUntil: now.Add(time.Minute)}
	}
	docs := []core.Document{
		{ID: core.NewDocID(), Text: "What about the coffee meeting we had in Berlin last week with the project team?"},
		{ID: core.NewDocID(), Text: "Sure, here is an answer about the coffee meeting and the deadline of the project."},
	}
	b.ResetTimer()
	for range b.N {
		c.written(docs, maxTermDocs, now)
	}
}

// A write joins a remembered list exactly when hasForm says its text
// holds the list's stem, in any of the cases $contains is asked for,
// whatever written tests first.
func TestTermCacheWrittenMatchesHasForm(t *testing.T) {
	stems := []string{"coffee", "berlin", "caf", "café", "über", "rain"}
	texts := []string{"Coffee in Berlin", "COFFEE AND CAFÉ", "a café über alles", "the train", "RAIN, Rain, rain", "ÜBER CAFE", "cofee"}
	now := time.Now()
	c := &termCache{verdicts: map[string]termVerdict{}, clauses: map[string][]core.Cond{}}
	for _, st := range stems {
		c.verdicts[wholeStore+" "+st] = termVerdict{scope: wholeStore, stem: st, ids: []string{"doc-seed"}, until: now.Add(time.Hour), idsUntil: now.Add(time.Minute)}
	}
	docs := make([]core.Document, len(texts))
	for i, text := range texts {
		docs[i] = core.Document{ID: fmt.Sprintf("doc-%d", i), Text: text}
	}
	c.written(docs, maxTermDocs, now)
	for _, st := range stems {
		got := c.verdicts[wholeStore+" "+st].ids
		for _, d := range docs {
			if want := hasForm(d.Text, st); slices.Contains(got, d.ID) != want {
				t.Errorf("stem %q, text %q: in its list %v, hasForm %v", st, d.Text, !want, want)
			}
		}
	}
}
