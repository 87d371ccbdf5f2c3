package core

import (
	"context"
	"time"
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
	// PersonForgotten: everything about the Matrix user was forgotten in
	// the room, or in every room when roomID is "", as asked at `at`.
	PersonForgotten(ctx context.Context, userID, roomID string, at time.Time) error
	// RoomForgotten: everything the room caused to be stored was
	// forgotten (the API's entity=!room, or the bridge leaving it with
	// ROOM_DATA_ON_LEAVE=purge).
	RoomForgotten(ctx context.Context, roomID string) error
}

// applyDeletion applies a change that deletes documents and tells the
// listener which ones went, the memories the store's cascade took with
// them included (Deleted).
func (s *Service) applyDeletion(ctx context.Context, c Change) error {
	gone, err := s.store.Apply(ctx, c)
	if err != nil {
		return err
	}
	return s.documentsForgotten(ctx, gone.All())
}

// documentsForgotten tells the listener, if any, that ids are gone.
func (s *Service) documentsForgotten(ctx context.Context, ids []string) error {
	if s.forgot == nil || len(ids) == 0 {
		return nil
	}
	return s.forgot.DocumentsForgotten(ctx, ids)
}

// deleteWhere deletes the documents matching f, tells the listener which
// ones went (the cascade's included), and returns how many matched.
func (s *Service) deleteWhere(ctx context.Context, f Filter) (int, error) {
	gone, err := s.store.DeleteWhere(ctx, f)
	if err != nil {
		return len(gone.IDs), err
	}
	return len(gone.IDs), s.documentsForgotten(ctx, gone.All())
}
