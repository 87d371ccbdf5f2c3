package core

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
)

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

// Deleting are the ids c deletes for good: those of Delete it does not
// write again (Deleted.IDs).
func (c Change) Deleting() []string {
	var out []string
	for _, id := range c.Delete {
		if !slices.ContainsFunc(c.Put, func(d Document) bool { return d.ID == id }) {
			out = append(out, id)
		}
	}
	return out
}

// MarshalJSON writes the entry's time as every time in Ada's answers
// (isoTime). Its metadata keeps the stored form: the history answer shows
// the memory as it was stored.
func (h HistoryEntry) MarshalJSON() ([]byte, error) {
	type plain HistoryEntry
	return json.Marshal(struct {
		plain
		Time string `json:"timestamp"`
	}{plain(h), isoTime(h.Time)})
}

func historyOf(d Document, event string, at time.Time, reason string) HistoryEntry {
	return HistoryEntry{MemoryID: d.ID, Event: event, Time: at.UTC(), Text: d.Text, Meta: d.Meta, Reason: reason}
}

// Forgets reports whether a history event is a memory's end: the store
// records it without the memory's words and blanks them in its earlier
// entries.
func Forgets(event string) bool { return event == HistoryDelete || event == HistoryExpire }

// RetiredByPrefix starts the reason of every retire entry; the newer
// memory's id follows (RetireReason). The stores find a correction's
// older versions by it: when the newer memory is forgotten, so are the
// words of the versions it replaced.
const RetiredByPrefix = "replaced by a newer memory "

// RetireReason is the reason of a retire entry: which memory replaced the
// old one, never its words (DECISIONS.md, "Identities, walls and
// forgetting": a reason says what kind of thing happened, not what was
// said; the newer text once written here outlived its own deletion).
func RetireReason(newID string) string { return RetiredByPrefix + newID }

// ScrubRetireReason rewrites a retire reason as versions before issue 36
// wrote it ("replaced by doc-…: <the newer text>") to name the newer
// memory only; any other event or reason is returned as it is. Stores
// upgraded in place and exports read back use it, so that no reason keeps
// the words it quoted.
func ScrubRetireReason(event, reason string) string {
	rest, ok := strings.CutPrefix(reason, "replaced by doc-")
	id, _, quoted := strings.Cut(rest, ": ")
	if event != HistoryRetire || !ok || !quoted || !ValidDocID("doc-"+id) {
		return reason
	}
	return RetireReason("doc-" + id)
}
