package storagetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// testDeletedSaysWhatWent: Apply and DeleteWhere say which documents went,
// the memories the cascade took with them included (core.Deleted), so
// that whoever keeps copies hears of them: a retention sweep that takes a
// recent memory's last turn names the memory, and a deletion by id names
// what its cascade took, not a memory with a source left.
func testDeletedSaysWhatWent(t *testing.T, s Backend) {
	ctx := context.Background()
	conv := core.NewConversationID()
	old, fresh := turn(conv, 0, "user", "my locker code is 4417"), turn(conv, 1, "user", "and the bike lock is 1234")
	old.Meta.RoomID, fresh.Meta.RoomID = "!r:x", "!r:x"
	old.Meta.Timestamp = base.AddDate(0, 0, -40)
	swept := memory("The locker code is 4417", base)
	swept.Meta.RoomID, swept.Meta.SourceIDs = "!r:x", []string{old.ID}
	stays := memory("The codes are 4417 and 1234", base)
	stays.Meta.RoomID, stays.Meta.SourceIDs = "!r:x", []string{old.ID, fresh.ID}
	put(t, s, old, fresh, swept, stays)

	gone, err := s.DeleteWhere(ctx, core.Filter{AnyRoom: true, OlderThan: base.AddDate(0, 0, -30)})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gone.IDs, []string{old.ID}) || !slices.Equal(gone.Orphans, []string{swept.ID}) {
		t.Errorf("retention took %+v, want the old turn %s and the memory learned only from it %s", gone, old.ID, swept.ID)
	}

	gone, err = s.Apply(ctx, core.Change{Delete: []string{fresh.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(gone.IDs, []string{fresh.ID}) || !slices.Equal(gone.Orphans, []string{stays.ID}) {
		t.Errorf("deleting the last turn took %+v, want it %s and the memory learned from it %s", gone, fresh.ID, stays.ID)
	}
	if slices.Contains(gone.All(), swept.ID) {
		t.Errorf("a memory gone before is named again: %v", gone.All())
	}

	later := memory("Kept on purpose", base.Add(time.Minute))
	put(t, s, later)
	gone, err = s.Apply(ctx, core.Change{Delete: []string{later.ID}, Put: []core.Document{memory("unrelated", base)}})
	if err != nil || !slices.Equal(gone.IDs, []string{later.ID}) || len(gone.Orphans) != 0 {
		t.Errorf("deleting a memory without sources took %+v, %v; want it alone", gone, err)
	}
}
