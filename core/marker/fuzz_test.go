package marker

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParser checks the parser's invariants on arbitrary input split into
// arbitrary chunks (the split is derived from seed):
//   - it never panics;
//   - the text a chat turn shows (everything emitted before the first marker,
//     or all of it plus Flush when there is none) never contains Prefix, and
//     neither does the text between two markers;
//   - emitted text interleaved with the markers' Raw gives back the input;
//   - the outcome does not depend on how the input was split.
func FuzzParser(f *testing.F) {
	for _, tc := range parserCases {
		f.Add(tc.in, uint64(len(tc.in)))
	}
	f.Fuzz(func(t *testing.T, in string, seed uint64) {
		whole := run([]string{in})
		for _, chunks := range [][]string{strings.Split(in, ""), split(in, seed)} {
			if got := run(chunks); !equal(got, whole) {
				t.Fatalf("split %q:\ngot  %+v\nwant %+v", chunks, got, whole)
			}
		}

		var back strings.Builder
		for i, seg := range whole.Segments {
			if strings.Contains(seg, Prefix) {
				t.Fatalf("segment %d %q holds a marker", i, seg)
			}
			back.WriteString(seg)
			if i < len(whole.Requests) {
				checkRequest(t, whole.Requests[i])
				back.WriteString(whole.Requests[i].Raw)
			}
		}
		if back.String() != in {
			t.Fatalf("emitted text and markers %q do not rebuild the input %q", back.String(), in)
		}

		if shown := chatTurn(split(in, seed)); strings.Contains(shown, Prefix) {
			t.Fatalf("chat turn shows marker text: %q", shown)
		}
	})
}

// chatTurn is how the chat loop uses a parser: it shows text until the first
// marker and stops there, or flushes at the end of the stream.
func chatTurn(chunks []string) string {
	var shown strings.Builder
	p := NewParser()
	for _, c := range chunks {
		text, r := p.Feed(c)
		shown.WriteString(text)
		if r != nil {
			return shown.String()
		}
	}
	text, _ := p.Flush()
	shown.WriteString(text)
	return shown.String()
}

func checkRequest(t *testing.T, r req) {
	t.Helper()
	if !strings.HasPrefix(r.Raw, Prefix) {
		t.Fatalf("request Raw %q does not start with %s", r.Raw, Prefix)
	}
	if r.Err != "" {
		return
	}
	var args map[string]any
	if r.Name == "" || json.Unmarshal([]byte(r.Args), &args) != nil {
		t.Fatalf("request without error has name %q and args %q", r.Name, r.Args)
	}
}

// split cuts s into chunks of 0 to 7 bytes chosen by a xorshift generator,
// so a fuzz input also explores where token boundaries fall.
func split(s string, seed uint64) []string {
	x := seed | 1
	var chunks []string
	for len(s) > 0 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		n := min(int(x%8), len(s))
		chunks = append(chunks, s[:n])
		s = s[n:]
	}
	return chunks
}
