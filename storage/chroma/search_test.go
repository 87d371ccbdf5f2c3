package chroma

import (
	"context"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
)

// A word in more than maxTermDocs turns but one memory is rare for a
// memory search: the filter goes to Chroma, so the memory is found.
func TestKeywordSearchCommonnessWithinFilter(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, storagetest.StartChroma(t).URL+"?database=commonness")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	conv := core.NewConversationID()
	var docs []core.Document
	for i := range maxTermDocs + 1 {
		turn := i
		docs = append(docs, core.Document{ID: core.NewDocID(), Text: "we talked about the zeppelin again", Embedding: embed.HashVector("turn"),
			Meta: core.Metadata{Type: core.DocTurn, Timestamp: now, Source: core.SourceChat, Scope: core.ScopeGlobal, ConversationID: conv, Role: "user", TurnIndex: &turn}})
	}
	memory := core.Document{ID: core.NewDocID(), Text: "The user flew in a zeppelin once", Embedding: embed.HashVector("memory"),
		Meta: core.Metadata{Type: core.DocMemory, Timestamp: now, Source: core.SourceChat, Scope: core.ScopeGlobal, Importance: 3}}
	if err := s.Put(ctx, append(docs, memory)...); err != nil {
		t.Fatal(err)
	}
	hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "zeppelin", K: 5, Filter: core.Filter{Type: core.DocMemory}})
	if err != nil || len(hits) != 1 || hits[0].ID != memory.ID || len(hits[0].Embedding) != core.Dim {
		t.Fatalf("hits = %d (%v), want the memory", len(hits), err)
	}
}
