package storage

import "context"

// Counts names the embedder of the stored vectors and counts the
// documents and history entries the snapshot holds (the export's header,
// whichever backend it is read from).
func (s *Snapshot) Counts(context.Context) (embedder string, documents, history int, err error) {
	return s.Embedder, s.Documents, s.History, nil
}
