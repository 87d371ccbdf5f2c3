package storagetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// pageDocs are the memories the memory page's filters tell apart: by
// scope, source, importance, time, room and whom they concern.
type pageDocs struct{ chat, imported, entity, room, turn core.Document }

func putPageDocs(t *testing.T, s Backend) pageDocs {
	var p pageDocs
	p.chat = memory("a chat memory", base)
	p.imported = memory("an imported memory", base.Add(time.Hour))
	p.imported.Meta.Source, p.imported.Meta.Importance = core.SourceImport, 4
	p.entity = memory("Sam likes tea", base.Add(2*time.Hour))
	p.entity.Meta.Scope, p.entity.Meta.Entity, p.entity.Meta.Importance = core.EntityScope("@sam:x"), "@sam:x", 5
	p.room = memory("the room meets on Monday", base.Add(3*time.Hour))
	p.room.Meta.RoomID, p.room.Meta.UserID = "!r:x", "@kim:x"
	p.turn = turn(core.NewConversationID(), 0, "user", "hi")
	p.turn.Meta.Timestamp = base.Add(-time.Hour)
	put(t, s, p.chat, p.imported, p.entity, p.room, p.turn)
	return p
}

// testCount: the memory page's totals count what its listing selects,
// and stop at the limit.
func testCount(t *testing.T, s Backend) {
	ctx := context.Background()
	p := putPageDocs(t, s)
	mem := func(f core.Filter) core.Filter { f.Type = core.DocMemory; return f }
	cases := []struct {
		name  string
		f     core.Filter
		limit int
		want  []string
	}{
		{"everything", core.Filter{}, 0, []string{p.room.ID, p.entity.ID, p.imported.ID, p.chat.ID, p.turn.ID}},
		{"everything, limited", core.Filter{}, 3, nil},
		{"memories", mem(core.Filter{}), 0, []string{p.room.ID, p.entity.ID, p.imported.ID, p.chat.ID}},
		{"memories, limited", mem(core.Filter{}), 2, nil},
		{"global", mem(core.Filter{Scopes: []string{core.ScopeGlobal}}), 0, []string{p.room.ID, p.imported.ID, p.chat.ID}},
		{"entity", mem(core.Filter{AnyEntity: true}), 0, []string{p.entity.ID}},
		{"room", mem(core.Filter{AnyRoom: true}), 0, []string{p.room.ID}},
		{"source", mem(core.Filter{Source: core.SourceImport}), 0, []string{p.imported.ID}},
		{"importance", mem(core.Filter{MinImportance: 4}), 0, []string{p.entity.ID, p.imported.ID}},
		{"importance, limited", mem(core.Filter{MinImportance: 4}), 1, nil},
		{"since", mem(core.Filter{Since: base.Add(time.Hour)}), 0, []string{p.room.ID, p.entity.ID, p.imported.ID}},
		{"until", mem(core.Filter{Until: base.Add(time.Hour)}), 0, []string{p.chat.ID}},
		{"since and until", mem(core.Filter{Since: base.Add(time.Hour), Until: base.Add(3 * time.Hour)}), 0, []string{p.entity.ID, p.imported.ID}},
		{"a member's view", mem(core.Filter{Visible: &core.Visibility{UserID: "@sam:x"}}), 0, []string{p.entity.ID}},
		{"a member's rooms", mem(core.Filter{Visible: &core.Visibility{UserID: "@ann:x", Rooms: []string{"!r:x"}}}), 0, []string{p.room.ID}},
		{"nothing", mem(core.Filter{Source: core.SourceSystem}), 0, []string{}},
	}
	for _, c := range cases {
		want := len(c.want)
		if c.limit > 0 {
			want = c.limit
		}
		if n, err := s.Count(ctx, c.f, c.limit); err != nil || n != want {
			t.Errorf("count %s = %d, %v; want %d", c.name, n, err, want)
		}
		if c.want == nil {
			continue
		}
		// The listing of the same filter holds what was counted.
		if got, err := s.List(ctx, c.f, 10); err != nil || !slices.Equal(docIDs(got), c.want) {
			t.Errorf("list %s = %v, %v; want %v", c.name, docIDs(got), err, c.want)
		}
	}
}

// testForgotten: the forgotten list is what took a memory away (deleted,
// expired, retired), newest first, with when, how, why and whose, without
// the words of what was forgotten.
func testForgotten(t *testing.T, s Backend) {
	ctx := context.Background()
	p := putPageDocs(t, s)
	create := core.HistoryEntry{MemoryID: p.chat.ID, Event: core.HistoryCreate, Time: base, Text: p.chat.Text, Meta: p.chat.Meta}
	changes := []core.Change{
		{History: []core.HistoryEntry{create}},
		{Delete: []string{p.chat.ID}, History: []core.HistoryEntry{{MemoryID: p.chat.ID, Event: core.HistoryDelete,
			Time: base.Add(4 * time.Hour), Text: p.chat.Text, Meta: p.chat.Meta, Reason: "asked"}}},
		{Delete: []string{p.imported.ID}, History: []core.HistoryEntry{{MemoryID: p.imported.ID, Event: core.HistoryRetire,
			Time: base.Add(5 * time.Hour), Text: p.imported.Text, Meta: p.imported.Meta, Reason: "replaced by a correction"}}},
		{Delete: []string{p.room.ID}, History: []core.HistoryEntry{{MemoryID: p.room.ID, Event: core.HistoryExpire,
			Time: base.Add(6 * time.Hour), Text: p.room.Text, Meta: p.room.Meta, Reason: "expires_at passed"}}},
	}
	for _, c := range changes {
		if _, err := s.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Forgotten(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id, event, reason, text, room string
		at                            time.Time
	}{
		{p.room.ID, core.HistoryExpire, "expires_at passed", "", "!r:x", base.Add(6 * time.Hour)},
		{p.imported.ID, core.HistoryRetire, "replaced by a correction", p.imported.Text, "", base.Add(5 * time.Hour)},
		{p.chat.ID, core.HistoryDelete, "asked", "", "", base.Add(4 * time.Hour)},
	}
	if len(got) != len(want) {
		t.Fatalf("forgotten = %+v; want %d entries", got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.MemoryID != w.id || g.Event != w.event || g.Reason != w.reason || g.Text != w.text ||
			g.Meta.RoomID != w.room || !g.Time.Equal(w.at) || g.Meta.Type != core.DocMemory {
			t.Errorf("forgotten[%d] = %+v; want %+v", i, g, w)
		}
	}
	if got, err := s.Forgotten(ctx, 2); err != nil || len(got) != 2 || got[1].MemoryID != p.imported.ID {
		t.Errorf("forgotten, 2 = %+v, %v", got, err)
	}
}
