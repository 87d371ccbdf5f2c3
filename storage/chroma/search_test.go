package chroma

import (
	"context"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
)

// A word in more than maxTermDocs turns but one memory is rare for a
// memory search: the filter goes to Chroma, so the memory is found.
func TestKeywordSearchCommonnessWithinFilter(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "commonness")
	now := time.Now().UTC()
	conv := core.NewConversationID()
	var docs []core.Document
	for i := range maxTermDocs + 1 {
		docs = append(docs, testTurn(conv, i, "user", "we talked about the zeppelin again", now))
	}
	memory := testMemory("The user flew in a zeppelin once", now)
	if err := s.Put(ctx, append(docs, memory)...); err != nil {
		t.Fatal(err)
	}
	hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "zeppelin", K: 5, Filter: core.Filter{Type: core.DocMemory}})
	if err != nil || len(hits) != 1 || hits[0].ID != memory.ID || len(hits[0].Embedding) != core.Dim {
		t.Fatalf("hits = %d (%v), want the memory", len(hits), err)
	}
}
