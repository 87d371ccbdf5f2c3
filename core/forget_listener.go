package core

import (
	"context"
	"slices"
)

// ForgetListener is told what core deleted, whatever the door (the API,
// MCP, the memory page, the bridge, retention), so that what others keep
// of it goes too: the bridge's last answer for `!ada why` quotes the
// documents it used, and it holds a member's room messages and page
// sessions (DECISIONS.md, forgetting). It is called after the deletion is
// committed; an error fails the call that deleted, so the caller learns
// that a copy may remain.
type ForgetListener interface {
	// DocumentsForgotten: the documents with these ids are gone.
	DocumentsForgotten(ctx context.Context, ids []string) error
	// PersonForgotten: everything about the Matrix user was forgotten,
	// in every room.
	PersonForgotten(ctx context.Context, userID string) error
}

// applyDeletion applies a change that deletes documents and tells the
// listener which ones went.
func (s *Service) applyDeletion(ctx context.Context, c Change) error {
	return s.applyDeletionOf(ctx, c, nil)
}

// applyDeletionOf is applyDeletion where the store's cascade also takes
// the memories more (orphanedBy).
func (s *Service) applyDeletionOf(ctx context.Context, c Change, more []string) error {
	if err := s.store.Apply(ctx, c); err != nil {
		return err
	}
	return s.documentsForgotten(ctx, append(slices.Clip(c.Delete), more...))
}

// documentsForgotten tells the listener, if any, that ids are gone.
func (s *Service) documentsForgotten(ctx context.Context, ids []string) error {
	if s.forgot == nil || len(ids) == 0 {
		return nil
	}
	return s.forgot.DocumentsForgotten(ctx, ids)
}

// deleteWhere deletes the documents matching f and tells the listener
// which ones went: their ids are read first, only when someone listens.
func (s *Service) deleteWhere(ctx context.Context, f Filter) (int, error) {
	var ids []string
	if s.forgot != nil {
		err := s.eachDocument(ctx, f, func(d Document) { ids = append(ids, d.ID) })
		if err != nil {
			return 0, err
		}
		orphans, err := s.orphanedBy(ctx, f.ConversationID, ids)
		if err != nil {
			return 0, err
		}
		ids = append(ids, orphans...)
	}
	n, err := s.store.DeleteWhere(ctx, f)
	if err != nil || n == 0 {
		return n, err
	}
	return n, s.documentsForgotten(ctx, ids)
}

// orphanedBy returns the automatic memories of the conversation left
// without a source by deleting gone: those with a source among gone and
// none other still stored (Orphaned). The store deletes them with those (DECISIONS.md,
// provenance; it looks only at memories drawn from what it deletes, as
// this does), and the listener must hear of them too. It reads only when
// someone listens, before the deletion.
func (s *Service) orphanedBy(ctx context.Context, convID string, gone []string) ([]string, error) {
	if s.forgot == nil || convID == "" || len(gone) == 0 {
		return nil, nil
	}
	var learned []Document
	err := s.eachDocument(ctx, Filter{Type: DocMemory, ConversationID: convID}, func(d Document) {
		// A memory drawn from none of gone keeps what it has: its other
		// sources need no reading.
		if slices.ContainsFunc(d.Meta.SourceIDs, func(id string) bool { return slices.Contains(gone, id) }) {
			learned = append(learned, d)
		}
	})
	if err != nil {
		return nil, err
	}
	left := map[string]bool{} // whether a source not in gone is still stored
	var getErr error
	stored := func(id string) bool {
		if getErr != nil || slices.Contains(gone, id) {
			return false
		}
		if st, seen := left[id]; seen {
			return st
		}
		_, err := s.store.Get(ctx, id)
		if err != nil && KindOf(err) != KindNotFound {
			getErr = err
		}
		left[id] = err == nil
		return err == nil
	}
	var out []string
	for _, d := range learned {
		if Orphaned(d.Meta, stored) {
			out = append(out, d.ID)
		}
	}
	if getErr != nil {
		return nil, getErr
	}
	return out, nil
}
