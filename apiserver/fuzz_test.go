package apiserver

import (
	"testing"
)

// FuzzDecodeMemoryCreate feeds arbitrary bodies through the decoder and the
// request validation: they must return an error or an input, never panic.
func FuzzDecodeMemoryCreate(f *testing.F) {
	for _, seed := range []string{
		`{"text":"hello","importance":3}`,
		`{"content":"x","memory_type":"important","tags":["a"]}`,
		`{"text":"x","importance":"high"}`,
		`{"text":"x","importance":2.5e300}`,
		`{"text":null,"scope":"entity:"}`,
		`[]`, `null`, `{`, `"text"`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var req memoryCreateRequest
		if err := decodeJSON(body, &req); err != nil {
			return
		}
		in, err := req.toInput()
		if err == nil && in.Text == "" {
			t.Fatalf("accepted a memory without text: %q", body)
		}
	})
}
