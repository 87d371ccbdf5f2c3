package apiserver

import "testing"

// TestRedactLinks: a member's link loses its token wherever it is quoted;
// other text is returned as it was.
func TestRedactLinks(t *testing.T) {
	for in, want := range map[string]string{
		"/v1/memory/doc-1":                         "/v1/memory/doc-1",
		"/ui/login/abc_DEF-123":                    "/ui/login/…",
		`GET "/ui/login/tok?x=1" and /ui/login/t2`: `GET "/ui/login/…?x=1" and /ui/login/…`,
		"/ui/login/":                               "/ui/login/",
	} {
		if got := redactLinks(in); got != want {
			t.Errorf("redactLinks(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkRedactLinks: the request log's path, which is almost never a
// member's link.
func BenchmarkRedactLinks(b *testing.B) {
	for _, path := range []string{"/v1/memory/doc-0123456789abcdef", "/ui/login/abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"} {
		b.Run(path[:9], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = redactLinks(path)
			}
		})
	}
}
