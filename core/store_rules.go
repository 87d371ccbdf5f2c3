package core

// Rules every DocumentStore backend applies the same way, kept here so the
// SQLite and Chroma backends cannot drift apart.

// DeletionReason is why a memory deleted by the filter f went, for its
// history.
func DeletionReason(f Filter) string {
	switch {
	case !f.OlderThan.IsZero():
		return "older than the retention period (DATA_RETENTION_DAYS)"
	case f.ConversationID != "":
		return "its conversation was deleted"
	default:
		return "deleted with the documents it belonged to"
	}
}

// EmbedderMismatch is the error a store gives when its vectors were written
// by the embedder stored but configured is set: their distances would be
// meaningless.
func EmbedderMismatch(stored, configured string) error {
	return Errorf(KindInvalid,
		"the store's vectors were written by embedder %q but %q is configured: run `ada reindex` to re-embed every document, or configure %q again",
		stored, configured, stored)
}
