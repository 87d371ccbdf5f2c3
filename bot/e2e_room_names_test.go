package bot

import (
	"context"
	"testing"
)

// TestBridgeRoomNames: the memory page names a room by its name, and a room
// without one by its members other than Ada (their display names, else
// their localparts), as clients do. In rooms of three.
func TestBridgeRoomNames(t *testing.T) {
	f := newRoomsFixture(t)
	named := f.groupRoom(t, "the lighthouse")
	unnamed := f.groupRoom(t, "")
	got := f.bot.bot.RoomNames(context.Background(), []string{named.String(), unnamed.String()})
	if got[named.String()] != "the lighthouse" {
		t.Errorf("the named room goes by %q", got[named.String()])
	}
	if want := "member-alice and member-bob"; got[unnamed.String()] != want {
		t.Errorf("the room without a name goes by %q, want %q", got[unnamed.String()], want)
	}
}
