package core

import "context"

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
	if err := s.store.Apply(ctx, c); err != nil {
		return err
	}
	return s.documentsForgotten(ctx, c.Delete)
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
	}
	n, err := s.store.DeleteWhere(ctx, f)
	if err != nil || n == 0 {
		return n, err
	}
	return n, s.documentsForgotten(ctx, ids)
}
