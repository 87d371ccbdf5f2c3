package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestMCPToolsBoundTags: add_memory and update_memory refuse more than 20
// tags or a tag over 64 characters, naming the field, as the API does
// (the rule is core's, issue 36).
func TestMCPToolsBoundTags(t *testing.T) {
	m := startMCPStdio(t)
	t.Cleanup(func() { m.close() })
	send := m.send
	many := `["` + strings.Join(manyTags(21), `","`) + `"]`
	long := `["ok","` + strings.Repeat("t", 65) + `"]`

	got := send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_memory","arguments":{"text":"the shed key is blue","tags":` + many + `}}}`)
	if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "tags: at most 20 tags, got 21") {
		t.Errorf("add_memory with 21 tags: %s", got)
	}
	got = send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add_memory","arguments":{"text":"the shed key is blue","tags":` + long + `}}}`)
	if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "tags[1]: must be at most 64 characters") {
		t.Errorf("add_memory with a 65-character tag: %s", got)
	}
	got = send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add_memory","arguments":{"text":"the shed key is blue","tags":["shed"]}}}`)
	id := regexp.MustCompile(`doc-[0-9a-f-]{36}`).FindString(got)
	if id == "" || strings.Contains(got, `"isError":true`) {
		t.Fatalf("add_memory with one tag: %s", got)
	}
	got = send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"update_memory","arguments":{"id":"` + id + `","tags":` + many + `}}}`)
	if !strings.Contains(got, `"isError":true`) || !strings.Contains(got, "tags: at most 20 tags") {
		t.Errorf("update_memory with 21 tags: %s", got)
	}
}
