package core_test

import (
	"testing"

	"github.com/ada-chat/ada/core"
)

// TestAccessRule checks every cell of the one rule (DECISIONS.md,
// "Identities, walls and forgetting"): who sees, edits and forgets a
// memory bob told about alice in room R.
func TestAccessRule(t *testing.T) {
	const (
		alice, bob, carol = "@alice:x", "@bob:x", "@carol:x"
		room, other       = "!r:x", "!o:x"
	)
	m := core.Metadata{Type: core.DocMemory, UserID: bob, SubjectUserID: alice, RoomID: room, Entity: room}
	mods := func(rooms ...string) func(string) bool {
		return func(r string) bool {
			for _, x := range rooms {
				if x == r {
					return true
				}
			}
			return false
		}
	}
	for _, c := range []struct {
		name                 string
		a                    core.Actor
		see, edit, canForget bool
	}{
		{"nobody", core.Actor{}, false, false, false},
		{"operator", core.Actor{Operator: true}, true, true, true},
		{"the teller, in the room", core.Actor{UserID: bob, Rooms: []string{room}}, true, true, true},
		{"the teller, gone from the room", core.Actor{UserID: bob}, true, true, true},
		{"the subject, not in the room", core.Actor{UserID: alice}, true, false, true},
		{"the subject, in the room", core.Actor{UserID: alice, Rooms: []string{room}}, true, false, true},
		{"a room member", core.Actor{UserID: carol, Rooms: []string{room}}, true, false, false},
		{"a room moderator", core.Actor{UserID: carol, Rooms: []string{room}, Moderates: mods(room)}, true, false, true},
		{"another room's moderator", core.Actor{UserID: carol, Rooms: []string{other}, Moderates: mods(other)}, false, false, false},
		{"a stranger", core.Actor{UserID: carol, Rooms: []string{other}}, false, false, false},
		{"a former member", core.Actor{UserID: carol}, false, false, false},
	} {
		if got := c.a.MaySee(m); got != c.see {
			t.Errorf("%s: MaySee = %v, want %v", c.name, got, c.see)
		}
		if got := c.a.MayEdit(m); got != c.edit {
			t.Errorf("%s: MayEdit = %v, want %v", c.name, got, c.edit)
		}
		if got := c.a.MayForget(m); got != c.canForget {
			t.Errorf("%s: MayForget = %v, want %v", c.name, got, c.canForget)
		}
	}
	// A member's own entity scope is about them; a memory with no teller
	// and no subject is no member's.
	own := core.Metadata{Type: core.DocMemory, Entity: alice, Scope: core.EntityScope(alice)}
	if a := (core.Actor{UserID: alice}); !a.MaySee(own) || a.MayEdit(own) || !a.MayForget(own) {
		t.Error("alice's entity scope: she sees and forgets it, and edits only what she told")
	}
	global := core.Metadata{Type: core.DocMemory, Scope: core.ScopeGlobal}
	if a := (core.Actor{UserID: alice, Rooms: []string{room}, Moderates: mods(room)}); a.MaySee(global) || a.MayForget(global) {
		t.Error("a global memory is the operator's")
	}
	// The member's view of the memory page applies the same rule.
	v := &core.Visibility{UserID: carol, Rooms: []string{room}}
	if !v.Sees(m) || (&core.Visibility{UserID: carol}).Sees(m) {
		t.Error("Visibility.Sees must be Actor.MaySee")
	}
}

// An end user named by a front-end reaches what is stored in their entity
// scope outside any room, and nothing else: not another end user's, not a
// global memory, not a room's or a member's, even one whose entity reads
// like their name.
func TestAccessRuleEndUser(t *testing.T) {
	alice := core.Actor{EndUser: "alice"}
	own := core.Metadata{Type: core.DocTurn, Scope: core.EntityScope("alice"), Entity: "alice"}
	if !alice.MaySee(own) || !alice.MayEdit(own) || !alice.MayForget(own) {
		t.Error("alice may see, edit and forget what is stored in her scope")
	}
	for name, m := range map[string]core.Metadata{
		"bob's":                {Type: core.DocTurn, Scope: core.EntityScope("bob"), Entity: "bob"},
		"an anonymous turn":    {Type: core.DocTurn, Scope: core.ScopeGlobal},
		"a global memory":      {Type: core.DocMemory, Scope: core.ScopeGlobal},
		"a room's turn":        {Type: core.DocTurn, Scope: core.ScopeGlobal, RoomID: "!r:x", UserID: "@alice:x"},
		"a room's memory":      {Type: core.DocMemory, Scope: core.EntityScope("!r:x"), Entity: "!r:x", RoomID: "!r:x"},
		"in a room, of her":    {Type: core.DocMemory, Scope: core.EntityScope("alice"), Entity: "alice", RoomID: "!r:x"},
		"a member's":           {Type: core.DocMemory, Scope: core.EntityScope("@alice:x"), Entity: "@alice:x", SubjectUserID: "@alice:x"},
		"with teller id alice": {Type: core.DocMemory, Scope: core.ScopeGlobal, UserID: "alice"},
	} {
		if alice.MaySee(m) || alice.MayEdit(m) || alice.MayForget(m) {
			t.Errorf("alice reaches %s", name)
		}
	}
}
