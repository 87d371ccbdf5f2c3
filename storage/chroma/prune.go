package chroma

import (
	"context"

	"github.com/ada-chat/ada/core"
)

// PruneImported removes the documents docIDs and the history entries of
// history, recording nothing, as storage.DB.PruneImported does: what an
// import into a store that is not empty removes first, so that the store
// ends with exactly the export's state. A history entry's record is found
// by its id, derived from its memory, event and time (historyRecords).
func (s *Store) PruneImported(ctx context.Context, docIDs []string, history []core.HistoryEntry) error {
	if err := s.deleteIDs(ctx, docIDs); err != nil {
		return err
	}
	r, err := historyRecords(history)
	if err != nil {
		return err
	}
	return s.c.deleteIDs(ctx, s.history, r.IDs)
}
