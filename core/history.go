package core

import "time"

// History events of a memory, in the order a memory can meet them.
const (
	HistoryCreate  = "create"
	HistoryRefresh = "refresh" // the same fact again: newer timestamp, higher importance
	HistoryPatch   = "patch"
	HistoryRetire  = "retire" // replaced by a correction: hidden, kept here
	HistoryDelete  = "delete"
	HistoryExpire  = "expire"
)

// HistoryEntry is one change to a memory, with the memory as it was after
// the change (for retire, delete and expire: as it was before).
type HistoryEntry struct {
	MemoryID string    `json:"memory_id"`
	Event    string    `json:"event"`
	Time     time.Time `json:"timestamp"`
	Text     string    `json:"text"`
	Meta     Metadata  `json:"metadata"`
	Reason   string    `json:"reason,omitempty"`
}

// Change is a set of writes the store applies in one transaction: ids to
// delete (missing ones are skipped), documents to insert or replace, and
// history entries to append.
type Change struct {
	Delete  []string
	Put     []Document
	History []HistoryEntry
	// Reason is recorded in the history of the automatic memories deleted
	// because Delete removed the last of their sources; empty says so in
	// general words.
	Reason string
}

func historyOf(d Document, event string, at time.Time, reason string) HistoryEntry {
	return HistoryEntry{MemoryID: d.ID, Event: event, Time: at.UTC(), Text: d.Text, Meta: d.Meta, Reason: reason}
}

// forgottenOf is the history entry of a memory that went (deleted or
// expired): what kind of thing it was, when and why, never its text or its
// tags (DECISIONS.md, Forgetting). The store also blanks the text of the
// memory's earlier entries when it records one.
func forgottenOf(d Document, event string, at time.Time, reason string) HistoryEntry {
	h := historyOf(d, event, at, reason)
	h.Text, h.Meta.Tags = "", nil
	return h
}

// Forgets reports whether a history event is a memory's end: its record
// keeps no text.
func Forgets(event string) bool { return event == HistoryDelete || event == HistoryExpire }
