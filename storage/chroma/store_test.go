package chroma

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
)

// TestConformance runs the storage conformance suite on a real Chroma
// server, each subtest in a database of its own: once as a small store,
// read whole, and once read back in time over growing spans, as a large
// store is (readBack).
func TestConformance(t *testing.T) {
	url := storagetest.StartChroma(t).URL
	for _, readWhole := range []int{metaPage, 0} {
		t.Run(fmt.Sprintf("readWhole=%d", readWhole), func(t *testing.T) {
			storagetest.Conformance(t, func(t *testing.T) storagetest.Backend {
				db := strings.NewReplacer("/", "-", " ", "-", "=", "-").Replace(t.Name())
				s, err := Open(context.Background(), url+"?database="+db)
				if err != nil {
					t.Fatal(err)
				}
				s.readWhole = readWhole
				return approximate{s}
			})
		})
	}
}

// approximate tells the conformance suite that Chroma's vector search is
// approximate (HNSW) even in a small store: it may miss a document of the
// filter, never return one outside it.
type approximate struct{ *Store }

func (approximate) ApproximateSearch() bool { return true }

// TestUnreachableIsUnavailable: a stopped server is a 503, not a 500.
func TestUnreachableIsUnavailable(t *testing.T) {
	_, err := Open(context.Background(), "http://127.0.0.1:1")
	if core.KindOf(err) != core.KindUnavailable {
		t.Fatalf("err = %v, want unavailable", err)
	}
}

// TestOpenCompletesACascade: a deletion cut short after the turns went
// and before their memory did (the process died) leaves an orphan; the
// next Open deletes it and records why.
func TestOpenCompletesACascade(t *testing.T) {
	ctx := context.Background()
	url := storagetest.StartChroma(t).URL + "?database=cascade"
	s, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	turn := core.Document{ID: core.NewDocID(), Text: "I moved to Lisbon", Embedding: embed.HashVector("I moved to Lisbon"),
		Meta: core.Metadata{Type: core.DocTurn, Timestamp: time.Now(), Source: core.SourceChat, Scope: core.ScopeGlobal,
			ConversationID: core.NewConversationID(), Role: "user", TurnIndex: &i}}
	mem := core.Document{ID: core.NewDocID(), Text: "The user lives in Lisbon", Embedding: embed.HashVector("The user lives in Lisbon"),
		Meta: core.Metadata{Type: core.DocMemory, Timestamp: time.Now(), Source: core.SourceChat, Scope: core.ScopeGlobal,
			Importance: 3, SourceIDs: []string{turn.ID}}}
	if err := s.Put(ctx, turn, mem); err != nil {
		t.Fatal(err)
	}
	// The first half of a deletion only: the turn, not the cascade.
	if err := s.c.deleteIDs(ctx, s.docs, []string{turn.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, mem.ID); err != nil {
		t.Fatalf("the orphan must still be there before the next start: %v", err)
	}
	s, err = Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, mem.ID); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("Open must complete the cascade: %v", err)
	}
	if h, _ := s.History(ctx, mem.ID); len(h) != 1 || h[0].Event != core.HistoryDelete || h[0].Reason == "" {
		t.Fatalf("history of the completed cascade: %+v", h)
	}
}

// TestRetriedApplyWritesOnce: a write retried after a failure half-way
// (here: made twice) leaves one document and one history entry.
func TestRetriedApplyWritesOnce(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "retry")
	m := testMemory("Sam likes tea", time.Now().UTC())
	c := core.Change{Put: []core.Document{m}, History: []core.HistoryEntry{{MemoryID: m.ID, Event: core.HistoryCreate, Time: m.Meta.Timestamp, Text: m.Text, Meta: m.Meta}}}
	for range 2 {
		if _, err := s.Apply(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	if h, _ := s.History(ctx, m.ID); len(h) != 1 {
		t.Fatalf("history after a retried write: %+v", h)
	}
	if st, _ := s.Stats(ctx); st.Total != 1 {
		t.Fatalf("documents after a retried write: %d", st.Total)
	}
}
