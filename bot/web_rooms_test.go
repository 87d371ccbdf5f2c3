package bot

import "testing"

// TestWithNames: a room without a name or an address goes by its members,
// as chat clients name it.
func TestWithNames(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"alice"}, "alice"},
		{[]string{"alice", "bob"}, "alice and bob"},
		{[]string{"alice", "bob", "carol"}, "alice, bob and carol"},
		{[]string{"alice", "bob", "carol", "dave", "erin"}, "alice, bob and 3 others"},
	} {
		if got := withNames(c.names); got != c.want {
			t.Errorf("withNames(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}
