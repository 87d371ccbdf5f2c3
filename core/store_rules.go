package core

import (
	"slices"
	"time"
)

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

// A memory dies with its last source (DECISIONS.md, provenance): an
// automatic memory learned from turns (Metadata.SourceIDs) is deleted with
// the last of them that is stored, and one none of whose turns is stored
// is refused (an extraction that finished after a redaction would
// otherwise keep it for good). A source never stored does not count. Both
// stores decide with Orphaned, counting the documents of the same write as
// stored; the storage conformance suite ("LastSource") checks them.

// SourcesGoneReason is the history reason of a memory deleted with its
// last source, when the deletion gives none (Change.Reason).
const SourcesGoneReason = "all the messages it was learned from were deleted"

// Orphaned reports whether m was learned from sources none of which is
// stored (stored reports whether one is).
func Orphaned(m Metadata, stored func(id string) bool) bool {
	return len(m.SourceIDs) > 0 && !slices.ContainsFunc(m.SourceIDs, stored)
}

// SourcesGone is the error of a write of an orphaned memory.
func SourcesGone(id string) error {
	return Errorf(KindNotFound, "memory %s: the turns it was learned from were deleted", id)
}

// OrphanDeleted is the history entry of a memory deleted with its last
// source; an empty reason is SourcesGoneReason.
func OrphanDeleted(id string, m Metadata, at time.Time, reason string) HistoryEntry {
	if reason == "" {
		reason = SourcesGoneReason
	}
	return HistoryEntry{MemoryID: id, Event: HistoryDelete, Time: at, Meta: m, Reason: reason}
}
