package chroma

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ada-chat/ada/core"
)

// A store written before the postings (or with another postingsVersion)
// gets them in the background after Open: the ids of every document are
// read, then their texts and metadata getPage at a time by id, and their
// postings written; then a record in the store's own collection (stmeta,
// postingsMarkerID) says the postings are complete, for this replica and
// those opened after. Until then keyword searches are answered by
// $contains gets (containsSearch), and every write and deletion keeps the
// postings as it would once they are complete. Another replica opened
// meanwhile backfills too (the same postings, by id: harmless).
//
// A document deleted while the backfill reads it: the backfill checks,
// after writing a page's postings, which of its documents are still
// stored and deletes the postings of the others; a deletion after that
// check deletes them itself (removeDocs deletes postings after the
// documents too). A document written meanwhile gets its postings from
// its write.
const (
	postingsMarkerID = "keyword-postings"
	postingsVersion  = 1
)

// backfill is the state of a store's postings.
type backfill struct {
	done   atomic.Bool
	ended  chan struct{} // closed when the backfill ended, complete or not
	cancel context.CancelFunc
	err    error // why it ended incomplete, once ended
	once   sync.Once
}

// complete reports whether the postings hold every document.
func (b *backfill) complete() bool { return b.done.Load() }

// wait waits for the backfill to end, and returns why it ended
// incomplete (nil once complete).
func (b *backfill) wait(ctx context.Context) error {
	select {
	case <-b.ended:
		return b.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop cancels the backfill and waits for it to end.
func (b *backfill) stop() {
	b.once.Do(func() {
		if b.cancel != nil {
			b.cancel()
		}
		<-b.ended
	})
}

// startBackfill reads the marker, and starts the backfill unless it says
// the postings are complete.
func (s *Store) startBackfill(ctx context.Context) error {
	s.backfill = &backfill{ended: make(chan struct{})}
	got, err := s.c.get(ctx, s.stmeta, getRequest{IDs: []string{postingsMarkerID}, Include: []string{"metadatas"}})
	if err != nil {
		return err
	}
	if len(got.IDs) == 1 && number(got.Metadatas[0]["version"]) == postingsVersion && number(got.Metadatas[0]["shards"]) == postingShards {
		s.backfill.done.Store(true)
		close(s.backfill.ended)
		return nil
	}
	if n, err := s.c.count(ctx, s.docs); err != nil || n == 0 {
		if err == nil { // a new store: complete at once
			err = s.markPostingsComplete(ctx)
		}
		s.backfill.done.Store(err == nil)
		close(s.backfill.ended)
		return err
	}
	bctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.backfill.cancel = cancel
	go func() {
		defer close(s.backfill.ended)
		if err := s.fillPostings(bctx); err != nil {
			s.backfill.err = err
			if bctx.Err() == nil {
				core.LoggerFrom(ctx, slog.Default()).Error("chroma: the keyword postings' backfill stopped; keyword search stays on $contains until the next start", "err", err)
			}
			return
		}
		s.backfill.done.Store(true)
	}()
	return nil
}

// fillPostings writes the postings of every stored document, then the
// marker.
func (s *Store) fillPostings(ctx context.Context) error {
	var ids []string
	err := s.c.pages(ctx, s.docs, getRequest{Include: []string{}}, func(got records) (bool, error) {
		ids = append(ids, got.IDs...)
		return true, nil
	})
	if err != nil {
		return err
	}
	for chunk := range slices.Chunk(ids, getPage) {
		docs, err := s.stored(ctx, chunk)
		if err != nil {
			return err
		}
		if err := s.addPostings(ctx, docs); err != nil {
			return err
		}
		still, err := s.Stored(ctx, chunk)
		if err != nil {
			return err
		}
		gone := slices.DeleteFunc(docs, func(d core.Document) bool { return still[d.ID] })
		if err := s.deletePostings(ctx, gone, nil); err != nil {
			return err
		}
	}
	return s.markPostingsComplete(ctx)
}

// markPostingsComplete writes the marker.
func (s *Store) markPostingsComplete(ctx context.Context) error {
	return s.c.upsert(ctx, s.stmeta, records{IDs: []string{postingsMarkerID}, Embeddings: [][]float32{unitVector},
		Documents: []string{""}, Metadatas: []map[string]any{{"kind": "postings", "version": postingsVersion, "shards": postingShards}}})
}
