package bot

import (
	"strings"
	"testing"
)

// TestPlural (issue 40 item 15): one of a thing is singular, and so is the
// forget me reply's count of one.
func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 memories", 1: "1 memory", 2: "2 memories"} {
		if got := plural(n, "memory", "memories"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
	got := forgotText("you", 1, 1, 1, 1, 1)
	for _, bad := range []string{"1 memories", "1 turns", "1 stored messages", "1 summaries", "replies were"} {
		if strings.Contains(got, bad) {
			t.Errorf("forget me with one of each says %q: %s", bad, got)
		}
	}
}
