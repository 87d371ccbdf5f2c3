package core_test

import (
	"testing"

	"github.com/ada-chat/ada/core"
)

// TestVisibleIsSees: a member's view as a filter condition (what the
// stores translate) admits what Visibility.Sees lets them see.
func TestVisibleIsSees(t *testing.T) {
	users := []string{"", "@ann:x", "@bob:x"}
	rooms := []string{"", "!r1:x", "!r2:x"}
	views := []core.Visibility{{}, {UserID: "@ann:x"}, {Rooms: []string{"!r1:x"}}, {UserID: "@bob:x", Rooms: []string{"!r1:x", "!r2:x"}}}
	for _, teller := range users {
		for _, subject := range users {
			for _, entity := range users {
				for _, room := range rooms {
					d := core.Document{ID: "doc-1", Meta: core.Metadata{Type: core.DocMemory, Scope: core.ScopeGlobal,
						UserID: teller, SubjectUserID: subject, Entity: entity, RoomID: room}}
					for _, v := range views {
						if got, want := (core.Filter{Visible: &v}).Admits(&d), v.Sees(d.Meta); got != want {
							t.Errorf("view %+v of %+v: admits %v, sees %v", v, d.Meta, got, want)
						}
					}
				}
			}
		}
	}
}
