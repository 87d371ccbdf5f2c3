package storage

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

func turnDoc(conv, room string, idx int, text string, ts time.Time) core.Document {
	return core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text),
		Meta: core.Metadata{Type: core.DocTurn, Timestamp: ts, Source: core.SourceChat, Scope: core.ScopeGlobal,
			ConversationID: conv, Role: "user", TurnIndex: &idx, RoomID: room}}
}

// TestMemoryGoesWithTheLastOfItsSources: deleting some of an automatic
// memory's source turns keeps it; deleting the last one deletes it in the
// same transaction, and its history says why. Replacing a source (a put of
// the same id) is not a deletion.
func TestMemoryGoesWithTheLastOfItsSources(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	conv, room := core.NewConversationID(), "!room:example.org"
	old, now := time.Now().Add(-48*time.Hour), time.Now()
	t1, t2 := turnDoc(conv, room, 0, "I live in Paris", old), turnDoc(conv, room, 1, "I still live in Paris", now)
	m := memoryDoc("Sam lives in Paris", core.ScopeGlobal, 3)
	m.Meta.SourceIDs = []string{t1.ID, t2.ID}
	m.Meta.RoomID = room
	if _, err := db.Apply(ctx, core.Change{Put: []core.Document{t1, t2, m},
		History: []core.HistoryEntry{{MemoryID: m.ID, Event: core.HistoryCreate, Time: now, Text: m.Text, Meta: m.Meta}}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Put(ctx, t2); err != nil { // a replacement, not a deletion
		t.Fatal(err)
	}
	if gone, err := db.DeleteWhere(ctx, core.Filter{Type: core.DocTurn, OlderThan: now.Add(-time.Hour)}); err != nil || len(gone.IDs) != 1 {
		t.Fatalf("deleting the old turn: %d, %v", len(gone.IDs), err)
	}
	if _, err := db.Get(ctx, m.ID); err != nil {
		t.Fatalf("the memory must survive while one source remains: %v", err)
	}
	if err := db.Delete(ctx, t2.ID, core.DocTurn); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Get(ctx, m.ID); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("the memory outlived its sources: %v", err)
	}
	hist, err := db.History(ctx, m.ID)
	// The deletion is recorded, with its reason and without the memory's
	// words, which are gone from its earlier entries too.
	if err != nil || len(hist) != 2 || hist[1].Event != core.HistoryDelete || hist[1].Reason == "" || hist[0].Text != "" || hist[1].Text != "" {
		t.Fatalf("history = %+v, %v", hist, err)
	}
	if n, err := db.PruneHistory(ctx, time.Now().Add(time.Hour)); err != nil || n != 0 {
		t.Fatalf("pruning a history whose text is already gone: %d, %v", n, err)
	}
}

// TestMemoryOfDeletedSourcesIsRefused: a memory written after all of its
// source turns were deleted (an extraction still running when a member
// redacted the message) is refused, with the rest of its change, instead of
// staying for good; one source left is enough.
func TestMemoryOfDeletedSourcesIsRefused(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	conv, room := core.NewConversationID(), "!room:example.org"
	t1, t2 := turnDoc(conv, room, 0, "my PIN is 4711", time.Now()), turnDoc(conv, room, 1, "noted", time.Now())
	if err := db.Put(ctx, t1); err != nil {
		t.Fatal(err)
	}
	late := memoryDoc("Sam's PIN is 4711", core.ScopeGlobal, 3)
	late.Meta.SourceIDs = []string{t2.ID} // never stored, as if deleted
	other := memoryDoc("Sam likes tea", core.ScopeGlobal, 2)
	_, err := db.Apply(ctx, core.Change{Put: []core.Document{other, late}})
	if core.KindOf(err) != core.KindNotFound {
		t.Fatalf("a memory whose sources are gone: %v, want not found", err)
	}
	for _, id := range []string{late.ID, other.ID} {
		if _, err := db.Get(ctx, id); core.KindOf(err) != core.KindNotFound {
			t.Fatalf("%s was written: %v", id, err)
		}
	}
	late.Meta.SourceIDs = []string{t1.ID, t2.ID}
	if err := db.Put(ctx, late); err != nil {
		t.Fatalf("one source left: %v", err)
	}
}

// TestApplyIsAtomic: a change whose last document is invalid writes
// nothing, not even the deletions and history before it.
func TestApplyIsAtomic(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	keep := memoryDoc("Sam likes tea", core.ScopeGlobal, 3)
	if err := db.Put(ctx, keep); err != nil {
		t.Fatal(err)
	}
	bad := memoryDoc("broken", core.ScopeGlobal, 3)
	bad.Meta.Importance = 9
	_, err := db.Apply(ctx, core.Change{Delete: []string{keep.ID}, Put: []core.Document{memoryDoc("fine", core.ScopeGlobal, 3), bad},
		History: []core.HistoryEntry{{MemoryID: keep.ID, Event: core.HistoryRetire, Time: time.Now(), Text: keep.Text, Meta: keep.Meta}}})
	if core.KindOf(err) != core.KindInvalid {
		t.Fatalf("apply with an invalid document: %v", err)
	}
	if _, err := db.Get(ctx, keep.ID); err != nil {
		t.Fatalf("the deletion was applied: %v", err)
	}
	if hist, _ := db.History(ctx, keep.ID); len(hist) != 0 {
		t.Fatalf("history was written: %+v", hist)
	}
}

// TestExpiredFilter selects memories whose expires_at has passed.
func TestExpiredFilter(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	past, future := time.Now().Add(-time.Minute).UTC(), time.Now().Add(time.Hour).UTC()
	gone, live, never := memoryDoc("gone", core.ScopeGlobal, 3), memoryDoc("live", core.ScopeGlobal, 3), memoryDoc("never", core.ScopeGlobal, 3)
	gone.Meta.ExpiresAt, live.Meta.ExpiresAt = &past, &future
	if err := db.Put(ctx, gone, live, never); err != nil {
		t.Fatal(err)
	}
	docs, err := db.List(ctx, core.Filter{Type: core.DocMemory, Expired: time.Now()}, 10)
	if err != nil || len(docs) != 1 || docs[0].ID != gone.ID {
		t.Fatalf("expired = %+v, %v", docs, err)
	}
}

// TestRetentionLeavesARecordWithoutTheText: a room memory deleted by the
// retention sweep keeps a history entry that says it went and why, and no
// entry of its history keeps its words.
func TestRetentionLeavesARecordWithoutTheText(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	room, old := "!room:example.org", time.Now().Add(-48*time.Hour)
	m := memoryDoc("the locker code is 4417", core.EntityScope(room), 3)
	m.Meta.RoomID, m.Meta.Timestamp, m.Meta.Tags = room, old, []string{"locker 4417"}
	if _, err := db.Apply(ctx, core.Change{Put: []core.Document{m},
		History: []core.HistoryEntry{{MemoryID: m.ID, Event: core.HistoryCreate, Time: old, Text: m.Text, Meta: m.Meta}}}); err != nil {
		t.Fatal(err)
	}
	if gone, err := db.DeleteWhere(ctx, core.Filter{AnyRoom: true, OlderThan: time.Now().Add(-time.Hour)}); err != nil || len(gone.IDs) != 1 {
		t.Fatalf("retention deleted %d: %v", len(gone.IDs), err)
	}
	hist, err := db.History(ctx, m.ID)
	if err != nil || len(hist) != 2 || hist[1].Event != core.HistoryDelete || !strings.Contains(hist[1].Reason, "retention") {
		t.Fatalf("history = %+v, %v", hist, err)
	}
	for _, h := range hist {
		if strings.Contains(h.Text, "4417") || len(h.Meta.Tags) > 0 {
			t.Errorf("the history keeps the forgotten words: %+v", h)
		}
	}
}

// TestOrphanDeletedOnceAcrossChunks: a memory whose sources fall in two
// chunks of a large deletion (sqlChunk ids a query) is deleted once, with
// one history entry, though both chunks name it.
func TestOrphanDeletedOnceAcrossChunks(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	conv, room := core.NewConversationID(), "!room:example.org"
	var turns, mems []core.Document
	for i := range sqlChunk + 1 {
		turns = append(turns, turnDoc(conv, room, i, fmt.Sprintf("message %d", i), time.Now()))
	}
	for i := range sqlChunk {
		m := memoryDoc(fmt.Sprintf("fact %d", i), core.ScopeGlobal, 2)
		m.Meta.SourceIDs = []string{turns[i].ID}
		mems = append(mems, m)
	}
	mems[0].Meta.SourceIDs = append(mems[0].Meta.SourceIDs, turns[sqlChunk].ID)
	if _, err := db.Apply(ctx, core.Change{Put: slices.Concat(turns, mems)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.DeleteWhere(ctx, core.Filter{Type: core.DocTurn}); err != nil {
		t.Fatal(err)
	}
	hist, err := db.History(ctx, mems[0].ID)
	if err != nil || len(hist) != 1 || hist[0].Event != core.HistoryDelete {
		t.Fatalf("history of the memory named by two chunks = %+v, %v", hist, err)
	}
}
