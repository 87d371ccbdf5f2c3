package chroma

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

// Within a read scope (a chat's retrieval) the reads of one conversation
// that a chat makes, its recent window, its turns and summaries searched
// by vector and by keyword and the neighbours of what they found, send
// one get of the conversation between them, and answer what they answer
// outside a scope. A conversation of more than scopeReadMax documents
// (lowered here) is read whole once, found too long, then read as
// outside a scope.
func TestReadScopeReadsAConversationOnce(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "scope")
	start := time.Now().UTC().Add(-time.Hour)
	conv, big := core.NewConversationID(), core.NewConversationID()
	topics := strings.Fields("garden train tea berlin music doctor")
	var docs []core.Document
	for i := range 40 {
		at := start.Add(time.Duration(i) * time.Minute)
		docs = append(docs, testTurn(conv, i, []string{"user", "assistant"}[i%2],
			fmt.Sprintf("turn %d on the %s and the %s", i, topics[i%len(topics)], topics[i*5%len(topics)]), at))
		if i%16 == 15 {
			idx := i / 16
			text := fmt.Sprintf("summary %d: the %s", idx, topics[i%len(topics)])
			docs = append(docs, core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text), Meta: core.Metadata{
				Type: core.DocSummary, Timestamp: at.Add(time.Second), Source: core.SourceSystem, Scope: core.ScopeGlobal,
				ConversationID: conv, SummaryIndex: &idx, TurnRange: fmt.Sprintf("%d-%d", i-15, i)}})
		}
		docs = append(docs, testMemory(fmt.Sprintf("a memory of the %s", topics[i%len(topics)]), at))
	}
	s.scopeMax = 100
	for i := range s.scopeMax + 1 {
		docs = append(docs, testTurn(big, i, "user", fmt.Sprintf("turn %d of a long one on the %s", i, topics[i%len(topics)]), start))
	}
	if err := s.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	log := &bodyLog{next: http.DefaultTransport}
	s.c.http.Transport = log
	prompt := "what did we say about the train and the garden"
	vec := embed.HashVector(prompt)
	retrieval := func(ctx context.Context, conv string) []any {
		turns := core.Filter{Type: core.DocTurn, ConversationID: conv}
		sums := core.Filter{Type: core.DocSummary, ConversationID: conv}
		var out []any
		add := func(v any, err error) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		add(s.List(ctx, turns, 8))
		add(s.List(ctx, sums, 2))
		add(s.Search(ctx, core.VectorQuery{Vector: vec, K: 50, Filter: turns}))
		add(s.KeywordSearch(ctx, core.KeywordQuery{Text: prompt, K: 50, Filter: turns}))
		add(s.Search(ctx, core.VectorQuery{Vector: vec, K: 4, Filter: sums}))
		add(s.KeywordSearch(ctx, core.KeywordQuery{Text: prompt, K: 4, Filter: sums}))
		add(s.List(ctx, core.Filter{Type: core.DocTurn, ConversationID: conv, TurnIndexes: []int{3, 4, 9, 30}}, 4))
		// Filters a chat does not send, answered as outside a scope too:
		// a page cursor, a time bound, every match.
		add(s.List(ctx, core.Filter{Type: core.DocTurn, ConversationID: conv, Before: &core.Position{Time: start.Add(20 * time.Minute), ID: "doc-z"}}, 5))
		add(s.List(ctx, core.Filter{ConversationID: conv, OlderThan: start.Add(10 * time.Minute)}, -1))
		add(s.Search(ctx, core.VectorQuery{Vector: vec, K: 3, Filter: core.Filter{Type: core.DocTurn, ConversationID: conv, AfterTurn: ptr(5), UpToTurn: ptr(12)}}))
		return out
	}
	// The small conversation: every read answers as outside a scope, one
	// get between them.
	want := retrieval(ctx, conv)
	log.bodies = nil
	got := retrieval(core.WithReadScope(ctx), conv)
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("read %d in a scope answered otherwise: %.300v", i, got[i])
		}
	}
	if n := convReads(log.bodies, conv); n != 1 {
		t.Errorf("a retrieval's reads sent %d requests naming the conversation in a scope, want 1", n)
	}
	// The long one: one get finds it too long, then each read asks as
	// outside a scope (a vector search there is approximate: its hits
	// are not compared).
	want = retrieval(ctx, big)
	log.bodies = nil
	got = retrieval(core.WithReadScope(ctx), big)
	for _, i := range []int{0, 1, 3, 5, 6, 7, 8} {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("the long conversation: read %d in a scope answered otherwise: %.300v", i, got[i])
		}
	}
	whole := 0
	for _, b := range log.bodies {
		if strings.Contains(b, `{"where":{"conversation_id":"`+big+`"}`) {
			whole++
		}
	}
	if whole != 1 {
		t.Errorf("the long conversation was read whole %d times in a scope, want once", whole)
	}
	// Found too long, it is not read whole again by the next chats.
	log.bodies = nil
	retrieval(core.WithReadScope(ctx), big)
	for _, b := range log.bodies {
		if strings.Contains(b, `{"where":{"conversation_id":"`+big+`"}`) {
			t.Error("the long conversation was read whole again by the next scope")
		}
	}
}

// A read scope does not use its conversation's read after this Ada
// deleted a document: what is forgotten during a chat is not recalled
// by it.
func TestReadScopeAfterADeletion(t *testing.T) {
	ctx := core.WithReadScope(context.Background())
	s := openTestStore(t, "scopedelete")
	conv := core.NewConversationID()
	now := time.Now().UTC()
	var turns []core.Document
	for i := range 10 {
		turns = append(turns, testTurn(conv, i, "user", fmt.Sprintf("turn %d about the ferry", i), now.Add(time.Duration(i)*time.Second)))
	}
	if err := s.Put(context.Background(), turns...); err != nil {
		t.Fatal(err)
	}
	f := core.Filter{Type: core.DocTurn, ConversationID: conv}
	if got, err := s.List(ctx, f, 20); err != nil || len(got) != 10 {
		t.Fatalf("%d turns (%v), want 10", len(got), err)
	}
	if err := s.Delete(context.Background(), turns[4].ID, core.DocTurn); err != nil {
		t.Fatal(err)
	}
	hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "turn 4 ferry", K: 20, Filter: f})
	if err != nil {
		t.Fatal(err)
	}
	listed, err := s.List(ctx, f, 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range append(listed, keywordDocs(hits)...) {
		if d.ID == turns[4].ID {
			t.Fatal("a turn deleted during the scope was found in it")
		}
	}
	if len(listed) != 9 {
		t.Errorf("%d turns listed after the deletion, want 9", len(listed))
	}
}

func keywordDocs(hits []core.KeywordHit) []core.Document {
	out := make([]core.Document, len(hits))
	for i, h := range hits {
		out[i] = h.Document
	}
	return out
}

func ptr(i int) *int { return &i }

// convReads counts the requests whose body names conversation conv.
func convReads(bodies []string, conv string) int {
	n := 0
	for _, b := range bodies {
		if strings.Contains(b, conv) {
			n++
		}
	}
	return n
}

// A read scope reads a conversation's vectors once: the next scope reads
// its texts and metadata only, and the vectors of what changed. A turn
// another replica edited is read again with its new vector, one it
// deleted is dropped, and one this Ada deletes leaves nothing held.
func TestHeldVectorsFollowTheConversation(t *testing.T) {
	ctx := context.Background()
	s, other := openReplicas(t, "held")
	start := time.Now().UTC().Add(-time.Hour)
	conv := core.NewConversationID()
	var turns []core.Document
	for i := range 20 {
		turns = append(turns, testTurn(conv, i, "user", fmt.Sprintf("turn %d about the ferry and item %d", i, i*7%13), start.Add(time.Duration(i)*time.Minute)))
	}
	if err := s.Put(ctx, turns...); err != nil {
		t.Fatal(err)
	}
	log := &bodyLog{next: http.DefaultTransport}
	s.c.http.Transport = log
	f := core.Filter{Type: core.DocTurn, ConversationID: conv}
	vec := embed.HashVector("the ferry and item 4")
	search := func() []core.Hit {
		log.bodies = nil
		hits, err := s.Search(core.WithReadScope(ctx), core.VectorQuery{Vector: vec, K: 20, Filter: f})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	vectorReads := func() (n int, ids int) {
		for _, b := range log.bodies {
			if strings.Contains(b, `"embeddings"`) {
				n++
				ids += strings.Count(b, "doc-")
			}
		}
		return n, ids
	}
	held := func() int {
		s.vectors.mu.Lock()
		defer s.vectors.mu.Unlock()
		return s.vectors.held
	}
	search()
	if n, ids := vectorReads(); n != 1 || ids != 20 {
		t.Errorf("the first scope read %d requests of %d vectors, want one of 20", n, ids)
	}
	search()
	if n, _ := vectorReads(); n != 0 {
		t.Errorf("the second scope read vectors %d times, want none", n)
	}
	edited := turns[3]
	edited.Text = "the ferry and item 4" // the query's own words
	edited.Embedding = embed.HashVector(edited.Text)
	if err := other.Put(ctx, edited); err != nil {
		t.Fatal(err)
	}
	if err := other.Delete(ctx, turns[5].ID, core.DocTurn); err != nil {
		t.Fatal(err)
	}
	hits := search()
	if n, ids := vectorReads(); n != 1 || ids != 1 {
		t.Errorf("after another replica's edit, the scope read %d requests of %d vectors, want one of 1", n, ids)
	}
	if hits[0].ID != edited.ID || hits[0].Text != edited.Text || hits[0].Distance > 1e-5 {
		t.Errorf("the nearest is %s %q at %v, want the edited turn at 0", hits[0].ID, hits[0].Text, hits[0].Distance)
	}
	for _, h := range hits {
		if h.ID == turns[5].ID {
			t.Error("a turn another replica deleted was found")
		}
	}
	if n := held(); n != 19 {
		t.Errorf("%d vectors held after another replica deleted one of 20, want 19", n)
	}
	if err := s.Delete(ctx, turns[7].ID, core.DocTurn); err != nil {
		t.Fatal(err)
	}
	if n := held(); n != 18 {
		t.Errorf("%d vectors held after this Ada deleted one, want 18", n)
	}
}
