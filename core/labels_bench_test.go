package core_test

import (
	"fmt"
	"testing"

	"github.com/ada-chat/ada/core"
)

// labelledLines is how many names one answer shows: the room's recent
// messages, the reply chain and the earlier turns of its prompt.
const labelledLines = 50

// benchRoom is a room of n members, one in ten of them sharing a display
// name with another, as a big room has a few.
func benchRoom(n int) core.Roster {
	r := make(core.Roster, n)
	for i := range r {
		name := fmt.Sprintf("Member %d", i)
		if i%10 == 1 {
			name = fmt.Sprintf("Member %d", i-1)
		}
		r[i] = core.Speaker{Name: name, UserID: fmt.Sprintf("@m%d:example.org", i)}
	}
	return r
}

// BenchmarkRoomLabels is the cost of naming one answer's senders in rooms
// of 10 and 1,000 members: each name working out the room's names anew
// (as every caller once did) against working them out once for the
// answer. One op is one answer of labelledLines names.
func BenchmarkRoomLabels(b *testing.B) {
	for _, n := range []int{10, 1000} {
		room := benchRoom(n)
		b.Run(fmt.Sprintf("members=%d/each", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i := range labelledLines {
					m := room[i%n]
					_ = room.Labels().Of(m.Name, m.UserID)
				}
			}
		})
		b.Run(fmt.Sprintf("members=%d/once", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				labels := room.Labels()
				for i := range labelledLines {
					m := room[i%n]
					_ = labels.Of(m.Name, m.UserID)
				}
			}
		})
	}
}
