package chroma

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ada-chat/ada/core"
)

// postingsSearch is KeywordSearch over the postings (postings.go): one
// get per term not known to be too common (termFetches at a time, each
// within one shard and the filter's where clause), BM25 computed here as
// rankBM25 does (N the store's count, document frequencies and the
// average length those of the candidates within the filter), then the K
// best read by id (completeHits).
func (s *Store) postingsSearch(ctx context.Context, q core.KeywordQuery, stems []string) ([]core.KeywordHit, error) {
	var total int
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		total, err = s.size.get(time.Now(), func() (int, error) { return s.c.count(gctx, s.docs) })
		return err
	})
	where := whereOf(q.Filter)
	now, scope := time.Now(), "postings\x00"+termScope(where)
	unique := slices.Compact(slices.Sorted(slices.Values(stems)))
	unique = slices.DeleteFunc(unique, func(st string) bool {
		common, known := s.terms.verdict(scope, st, now)
		return known && common
	})
	lists := make([][]posting, len(unique))
	fetch, fctx := errgroup.WithContext(gctx)
	fetch.SetLimit(termFetches)
	for i, st := range unique {
		fetch.Go(func() (err error) {
			lists[i], err = s.postingsOf(fctx, st, where)
			return err
		})
	}
	g.Go(fetch.Wait)
	if err := g.Wait(); err != nil {
		return nil, err
	}
	common := make([]bool, len(unique))
	byStem := map[string][]posting{}
	for i, st := range unique {
		if common[i] = len(lists[i]) > s.kw.termDocs; !common[i] {
			byStem[st] = lists[i]
		}
	}
	s.terms.set(scope, unique, common, now)
	kept := slices.DeleteFunc(slices.Clone(stems), func(st string) bool { return byStem[st] == nil })
	ranked := rankPostings(byStem, kept, total)
	if len(ranked) == 0 {
		return nil, nil
	}
	return s.completeHits(ctx, ranked, q.Filter, q.K, kept)
}

// rankPostings scores the documents of byStem (each kept term's postings
// within the filter) for stems (as often as the query says each), as
// rankBM25 scores the candidates of a $contains search: N is total (at
// least the candidates), df a term's postings, the average length that of
// the candidates.
func rankPostings(byStem map[string][]posting, stems []string, total int) []core.KeywordHit {
	lens := map[string]int{}
	tf := map[string]map[string]int{}
	for st, ps := range byStem {
		for _, p := range ps {
			lens[p.doc] = p.len
			if tf[p.doc] == nil {
				tf[p.doc] = map[string]int{}
			}
			tf[p.doc][st] = p.tf
		}
	}
	if len(lens) == 0 {
		return nil
	}
	total = max(total, len(lens))
	var totalLen int
	for _, n := range lens {
		totalLen += n
	}
	avgLen := float64(totalLen) / float64(len(lens))
	hits := make([]core.KeywordHit, 0, len(lens))
	for doc, n := range lens {
		var score float64
		for _, st := range stems {
			tfs := float64(tf[doc][st])
			if tfs == 0 {
				continue
			}
			df := float64(len(byStem[st]))
			idf := math.Max(math.Log((float64(total)-df+0.5)/(df+0.5)), 1e-6)
			score += idf * tfs * (bm25K1 + 1) / (tfs + bm25K1*(1-bm25B+bm25B*float64(n)/avgLen))
		}
		if score > 0 {
			hits = append(hits, core.KeywordHit{Document: core.Document{ID: doc}, BM25: score})
		}
	}
	slices.SortFunc(hits, func(a, b core.KeywordHit) int { return cmp.Or(cmp.Compare(b.BM25, a.BM25), cmp.Compare(a.ID, b.ID)) })
	return hits
}

// holdsAny reports whether text holds any of stems as a word's stem: a
// posting written by another replica from a version since rewritten, or
// by a backfill racing a deletion, names a document whose text may no
// longer hold the word; such a hit is left out.
func holdsAny(text string, stems []string) bool {
	for _, w := range words(text) {
		if slices.Contains(stems, stemOf(w)) {
			return true
		}
	}
	return false
}
