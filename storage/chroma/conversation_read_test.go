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
// outside a scope. A conversation of more than smallMax documents is
// read whole once, found too long, then read as outside a scope.
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
	for i := range smallMax + 1 {
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
	for _, i := range []int{0, 1, 3, 5, 6} {
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
}

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
