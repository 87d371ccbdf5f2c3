package core

import (
	"cmp"
	"context"
	"sync"
)

// relevantQuery is one search by relevance to a text.
type relevantQuery struct {
	Filter
	K int
	// Floor drops results whose relevance is below it.
	Floor float64
}

// minCandidates is how many candidates each of the two searches proposes
// at least, so that fusion has both lists to work with.
const minCandidates = 20

// searchRelevant is the one retrieval function: the chat's FAQ, memory and
// recall lookups, the memory search API and `ada eval retrieval` all rank
// through it. In hybrid mode the vector search and the keyword (BM25)
// search each propose candidates, and fuse ranks them by relevance. vec is
// text's embedding.
func (s *Service) searchRelevant(ctx context.Context, text string, vec []float32, q relevantQuery) ([]relevantDoc, error) {
	n := max(q.K, minCandidates)
	var (
		vecHits []Hit
		kwHits  []KeywordHit
		vecErr  error
		kwErr   error
		wg      sync.WaitGroup
	)
	vectorSearch := func() {
		vecHits, vecErr = s.store.Search(ctx, VectorQuery{Filter: q.Filter, Vector: vec, K: n})
	}
	switch s.opts.SearchMode {
	case SearchVector:
		vectorSearch()
	case SearchKeyword:
	default:
		// The two searches are independent: the vector search runs while
		// the keyword search does, so a hybrid search takes the longer of
		// the two, not their sum (make bench, stage shares). A panic in it
		// becomes an error here, as it would have been in the caller.
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					vecErr = Errorf(KindInternal, "vector search: panic: %v", r)
				}
			}()
			vectorSearch()
		})
	}
	if s.opts.SearchMode != SearchVector {
		kwHits, kwErr = s.store.KeywordSearch(ctx, KeywordQuery{Filter: q.Filter, Text: text, K: n})
	}
	wg.Wait()
	if err := cmp.Or(vecErr, kwErr); err != nil {
		return nil, err
	}
	return fuse(s.opts.SearchMode, vec, vecHits, kwHits, q.Floor, q.K), nil
}
