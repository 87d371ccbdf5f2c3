package bot

import "testing"

// TestExcerpt: a confirmation never shows the whole of what was remembered
// or forgotten (issue 27).
func TestExcerpt(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"my locker code is 4417", "my locker code…"},
		{"The Build Server is at 10.0.0.7", "The Build Server…"},
		{"the spare key is under the blue pot today", "the spare key is…"},
		{"code 4417", "code…"},
		{"hunter2", "hu…"},
		{"  a\n  b c  ", "a b…"},
		{"", ""},
	} {
		if got := excerpt(c.in); got != c.want {
			t.Errorf("excerpt(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
