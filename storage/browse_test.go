package storage

import (
	"context"
	"fmt"
	"testing"

	"github.com/ada-chat/ada/core"
)

// TestCountAndMemoryPageFilters: Count applies the memory page's narrowing
// and stops at its limit; a member's view selects what they told, what is
// about them and their rooms' memories.
func TestCountAndMemoryPageFilters(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	var docs []core.Document
	for i := range 10 {
		d := memoryDoc(fmt.Sprintf("memory %d", i), core.ScopeGlobal, 1+i%5)
		switch i {
		case 0:
			d.Meta.UserID = "@a:x"
		case 1:
			d.Meta.SubjectUserID = "@a:x"
		case 2:
			d.Meta.RoomID = "!r:x"
		case 3:
			d.Meta.RoomID = "!other:x"
		}
		docs = append(docs, d)
	}
	if err := db.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		f     core.Filter
		limit int
		want  int
	}{
		{"all", core.Filter{Type: core.DocMemory}, 0, 10},
		{"all, limited", core.Filter{Type: core.DocMemory}, 4, 4},
		{"importance", core.Filter{Type: core.DocMemory, MinImportance: 4}, 0, 4},
		{"member", core.Filter{Type: core.DocMemory, Visible: &core.Visibility{UserID: "@a:x", Rooms: []string{"!r:x"}}}, 0, 3},
		{"member, no rooms", core.Filter{Type: core.DocMemory, Visible: &core.Visibility{UserID: "@a:x"}}, 0, 2},
		{"room", core.Filter{Type: core.DocMemory, AnyRoom: true}, 0, 2},
		{"source", core.Filter{Type: core.DocMemory, Source: core.SourceImport}, 0, 0},
	} {
		n, err := db.Count(ctx, c.f, c.limit)
		if err != nil || n != c.want {
			t.Errorf("%s: %d, %v; want %d", c.name, n, err, c.want)
		}
	}
}
