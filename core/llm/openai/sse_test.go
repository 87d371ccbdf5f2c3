package openai

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestSSEReader(t *testing.T) {
	cases := []struct {
		name, in string
		want     []string
	}{
		{"one event", "data: {\"a\":1}\n\n", []string{`{"a":1}`}},
		{"no space after colon", "data:x\n\n", []string{"x"}},
		{"CRLF", "data: x\r\n\r\ndata: y\r\n\r\n", []string{"x", "y"}},
		{"comments and other fields", ": keep-alive\nevent: message\nid: 3\ndata: x\n\n", []string{"x"}},
		{"multi-line data", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"blank lines between", "\n\ndata: a\n\n\n\ndata: b\n\n", []string{"a", "b"}},
		{"last event without blank line", "data: a\n\ndata: [DONE]\n", []string{"a", "[DONE]"}},
		{"empty stream", "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newSSEReader(strings.NewReader(tc.in))
			var got []string
			for {
				data, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, string(data))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") || len(got) != len(tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
