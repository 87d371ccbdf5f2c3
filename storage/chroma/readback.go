package chroma

import (
	"context"
	"time"

	"github.com/ada-chat/ada/core"
)

// Chroma can neither group nor sort, so the newest of a listing or of
// the conversations are found by reading metadata (never texts) back in
// time from an anchor, over a span that starts at firstSpan and grows
// spanGrowth-fold (twice over after an empty span) until it holds
// enough: what is older than the span cannot be among the newest. A store of up to Store.readWhole documents
// (a page, metaPage) is read whole at once.
const (
	firstSpan   = time.Hour
	spanGrowth  = 4
	longestSpan = 100 * 365 * 24 * time.Hour
)

// readBack reads the metadata of the documents where selects, back from
// anchor over growing spans, until enough says the span's documents
// (those of where) suffice, or the span holds everything.
func (s *Store) readBack(ctx context.Context, where map[string]any, anchor time.Time, enough func([]core.Document) bool) error {
	total, err := s.c.count(ctx, s.docs)
	if err != nil {
		return err
	}
	for span := firstSpan; ; {
		w, whole := where, total <= s.readWhole || span >= longestSpan
		if !whole {
			since := map[string]any{"ts": map[string]any{"$gte": anchor.Add(-span).UnixNano()}}
			if w == nil {
				w = since
			} else {
				w = map[string]any{"$and": []any{where, since}}
			}
		}
		got, err := s.c.get(ctx, s.docs, getRequest{Where: w, Include: []string{"metadatas"}})
		if err != nil {
			return err
		}
		docs, err := documents(got)
		if err != nil {
			return err
		}
		if enough(docs) || whole {
			return nil
		}
		// An empty span says nothing of how far back the documents are:
		// leap further, to spend fewer reads on a store idle for long.
		growth := time.Duration(spanGrowth)
		if len(docs) == 0 {
			growth *= spanGrowth
		}
		if span < longestSpan/growth {
			span *= growth
		} else {
			span = longestSpan // no further, nor past time.Duration's 292 years
		}
	}
}
