package main

import (
	"fmt"
	"net/url"
	"testing"
)

// TestMemoryListingPagesWithACursor: walking next from the first page to
// null visits every memory once, newest first; a bad cursor is a 400.
func TestMemoryListingPagesWithACursor(t *testing.T) {
	ada := startAda(t, "serve", testEnv(t, nil))
	want := map[string]bool{}
	for i := range 25 {
		var m struct{ ID string }
		if st := ada.call("POST", "/v1/memory", map[string]any{"text": fmt.Sprintf("memory number %d", i)}, &m); st != 201 {
			t.Fatalf("create %d: %d", i, st)
		}
		want[m.ID] = true
	}
	seen := map[string]bool{}
	var sizes []int
	cursor := ""
	for page := 0; page < 10; page++ {
		q := url.Values{"limit": {"10"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var res struct {
			Items []struct{ ID string } `json:"items"`
			Next  *string               `json:"next"`
		}
		if st := ada.call("GET", "/v1/memory?"+q.Encode(), nil, &res); st != 200 {
			t.Fatalf("page %d: %d", page, st)
		}
		sizes = append(sizes, len(res.Items))
		for _, it := range res.Items {
			if seen[it.ID] || !want[it.ID] {
				t.Fatalf("page %d: %s listed twice or unknown", page, it.ID)
			}
			seen[it.ID] = true
		}
		if res.Next == nil {
			break
		}
		cursor = *res.Next
	}
	if len(seen) != 25 || fmt.Sprint(sizes) != "[10 10 5]" {
		t.Fatalf("pages %v, %d distinct memories", sizes, len(seen))
	}
	var e struct{ Detail string }
	if st := ada.call("GET", "/v1/memory?cursor=not-a-cursor", nil, &e); st != 400 || e.Detail == "" {
		t.Fatalf("bad cursor: %d %q", st, e.Detail)
	}
	if st := ada.call("GET", "/v1/memory?search=memory&cursor="+url.QueryEscape(cursor), nil, &e); st != 400 {
		t.Fatalf("cursor with a search: %d", st)
	}
}
