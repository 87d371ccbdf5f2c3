package chroma

import (
	"context"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/storagetest"
)

// openTestStore opens a store in database on a Chroma server of the test's own.
func openTestStore(tb testing.TB, database string) *Store {
	tb.Helper()
	s, err := Open(context.Background(), storagetest.StartChroma(tb).URL+"?database="+database)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// openReplicas opens two stores on one database of a Chroma server of
// the test's own, as two replicas of Ada sharing it.
func openReplicas(tb testing.TB, database string) (*Store, *Store) {
	tb.Helper()
	url := storagetest.StartChroma(tb).URL + "?database=" + database
	var out [2]*Store
	for i := range out {
		s, err := Open(context.Background(), url)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { s.Close() })
		out[i] = s
	}
	return out[0], out[1]
}

// testTurn is turn i of conversation conv, said by role at at.
func testTurn(conv string, i int, role, text string, at time.Time) core.Document {
	return core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text),
		Meta: core.Metadata{Type: core.DocTurn, Timestamp: at, Source: core.SourceChat, Scope: core.ScopeGlobal,
			ConversationID: conv, Role: role, TurnIndex: &i}}
}

// testMemory is a global chat memory of importance 3 written at at.
func testMemory(text string, at time.Time) core.Document {
	return core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text),
		Meta: core.Metadata{Type: core.DocMemory, Timestamp: at, Source: core.SourceChat, Scope: core.ScopeGlobal, Importance: 3}}
}
