package chroma

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
	"github.com/ada-chat/ada/storage/vecindex"
)

// A vector search of one conversation, or of a filter known to select
// few documents (the FAQ), reads their ids with the clause and their
// vectors by id, and ranks them here, exactly: no Chroma query with a
// where clause, which Chroma 1.0 answers by reading far more than the
// clause selects; nor, for a conversation, a query of the store's nearest
// neighbours first. Only the filter's documents come back; a conversation
// of more than smallMax is asked with its where clause, as before.
func TestSearchSmallReadsTheFilterOnce(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "small")
	now := time.Now().UTC()
	conv, big := core.NewConversationID(), core.NewConversationID()
	var docs, turns []core.Document
	for i := range 40 {
		text := fmt.Sprintf("note %d about the garden, the train and item %d", i, i*7%13)
		d := testTurn(conv, i, "user", text, now)
		docs, turns = append(docs, d, testMemory(text, now)), append(turns, d)
	}
	for i := range smallMax + 1 {
		docs = append(docs, testTurn(big, i, "user", fmt.Sprintf("turn %d of a long one", i), now))
	}
	if err := s.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	log := &bodyLog{next: http.DefaultTransport}
	s.c.http.Transport = log
	f := core.Filter{Type: core.DocTurn, ConversationID: conv}
	faqF := core.Filter{Type: core.DocFAQ}
	s.shares.measured(termScope(whereOf(faqF)), 0, time.Now())
	if hits, err := s.Search(ctx, core.VectorQuery{Vector: embed.HashVector("the train"), K: 5, Filter: faqF}); err != nil || len(hits) != 0 {
		t.Fatalf("no FAQ: %d hits (%v)", len(hits), err)
	}
	faqBodies := len(log.bodies)
	for q := range 3 {
		vec := embed.HashVector(fmt.Sprintf("the train and item %d", q))
		hits, err := s.Search(ctx, core.VectorQuery{Vector: vec, K: 5, Filter: f})
		if err != nil || len(hits) != 5 {
			t.Fatalf("query %d: %d hits (%v), want 5", q, len(hits), err)
		}
		exact := slices.Clone(turns)
		slices.SortFunc(exact, func(a, b core.Document) int {
			return cmp.Compare(vecindex.CosineDistance(vec, a.Embedding), vecindex.CosineDistance(vec, b.Embedding))
		})
		for i, h := range hits {
			if h.Meta.ConversationID != conv || h.Meta.Type != core.DocTurn || h.Text == "" {
				t.Fatalf("hit %s is a %s of %s", h.ID, h.Meta.Type, h.Meta.ConversationID)
			}
			if want := vecindex.CosineDistance(vec, exact[i].Embedding); math.Abs(float64(h.Distance-want)) > 1e-5 {
				t.Fatalf("query %d: hit %d at %v, the exact %dth at %v", q, i, h.Distance, i, want)
			}
		}
	}
	for i, b := range log.bodies {
		if strings.Contains(b, "query_embeddings") && strings.Contains(b, "where") {
			t.Errorf("a search of a small filter sent a query with a where clause: %.200s", b)
		}
		// A conversation is read whole, not first looked for among the
		// store's nearest neighbours (a sample overrates its share).
		if i >= faqBodies && strings.Contains(b, "query_embeddings") {
			t.Errorf("a search of a small conversation sent a query: %.200s", b)
		}
	}
	long := core.Filter{Type: core.DocTurn, ConversationID: big}
	hits, err := s.Search(ctx, core.VectorQuery{Vector: embed.HashVector("turn 7 of a long one"), K: 3, Filter: long})
	if err != nil || len(hits) != 3 || hits[0].Meta.ConversationID != big {
		t.Fatalf("a conversation of more than smallMax: %d hits (%v), want 3 of it", len(hits), err)
	}
}

// moveOnce is a transport that, when a request first matches match,
// forwards it, then runs move (another replica's write), then answers: a
// write that falls between two reads of one search.
type moveOnce struct {
	next  http.RoundTripper
	match string
	move  func()
	once  sync.Once
}

func (m *moveOnce) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := m.next.RoundTrip(r)
	if err == nil && strings.Contains(string(body), m.match) {
		m.once.Do(m.move)
	}
	return resp, err
}

// A turn another replica moves to another conversation between
// searchSmall's read of the conversation's ids and its read of them by
// id is not returned: the filter is checked again on what was read.
func TestSearchSmallChecksWhatItReadByID(t *testing.T) {
	ctx := context.Background()
	s, other := openReplicas(t, "smallmoved")
	now := time.Now().UTC()
	conv := core.NewConversationID()
	var turns []core.Document
	for i := range 10 {
		turns = append(turns, testTurn(conv, i, "user", fmt.Sprintf("turn %d about the ferry", i), now))
	}
	if err := s.Put(ctx, turns...); err != nil {
		t.Fatal(err)
	}
	moved := turns[3]
	moved.Meta.ConversationID = core.NewConversationID()
	s.c.http.Transport = &moveOnce{next: http.DefaultTransport, match: `"limit":513`, move: func() {
		if err := other.Put(context.Background(), moved); err != nil {
			t.Error(err)
		}
	}}
	hits, err := s.Search(ctx, core.VectorQuery{Vector: embed.HashVector("turn 3 about the ferry"), K: 10, Filter: core.Filter{Type: core.DocTurn, ConversationID: conv}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 9 {
		t.Errorf("%d hits, want the 9 turns left in the conversation", len(hits))
	}
	for _, h := range hits {
		if h.ID == moved.ID {
			t.Errorf("the turn moved to %s was returned as of %s", h.Meta.ConversationID, conv)
		}
	}
}
