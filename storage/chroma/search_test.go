package chroma

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
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

// Each term is counted once (the ids of its documents, at most
// maxTermDocs+1): a common term is left out, a rare term's documents are
// remembered, so the next search of known terms reads its candidates by
// id and asks Chroma no $contains. A write holding a rare term makes it
// counted again: the new document is found at once, and a term grown
// common is left out.
func TestKeywordSearchRemembersTermsDocuments(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "cut")
	s.kw = keywordLimits{termDocs: 3, conversationTexts: maxConversationTexts}
	now := time.Now().UTC()
	var docs []core.Document
	add := func(n int, text string) []string {
		var ids []string
		for range n {
			d := testMemory(text, now)
			docs, ids = append(docs, d), append(ids, d.ID)
		}
		return ids
	}
	add(8, "coffee in the morning")
	rare := add(1, "coffee in zanzibar")
	var spread []string
	for _, w := range []string{"kettle", "saucer", "teapot"} {
		spread = append(spread, add(3, "the "+w+" on the shelf")...)
	}
	if err := s.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	ids := func(hits []core.KeywordHit) []string {
		var out []string
		for _, h := range hits {
			out = append(out, h.ID)
		}
		slices.Sort(out)
		return out
	}
	// "coffee" is in 9 documents, more than 3: left out.
	hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "coffee zanzibar", K: 10})
	if err != nil || !slices.Equal(ids(hits), rare) || len(hits[0].Embedding) != core.Dim {
		t.Fatalf("hits = %v (%v), want the zanzibar memory alone", ids(hits), err)
	}
	if common, _, _, known := s.terms.verdict(termScope(nil), "coffee", time.Now()); !common || !known {
		t.Fatal("coffee should be remembered as common")
	}
	if common, docs, fresh, known := s.terms.verdict(termScope(nil), "zanzibar", time.Now()); common || !known || !fresh || !slices.Equal(docs, rare) {
		t.Fatalf("zanzibar should be remembered as rare, in %v; got %v", rare, docs)
	}
	log := &bodyLog{next: http.DefaultTransport}
	s.c.http.Transport = log
	hits, err = s.KeywordSearch(ctx, core.KeywordQuery{Text: "zanzibar coffee", K: 10})
	if err != nil || !slices.Equal(ids(hits), rare) {
		t.Fatalf("again: hits = %v (%v), want the zanzibar memory alone", ids(hits), err)
	}
	// With the terms known: the candidates' texts by id, the chosen
	// hits' metadata and vectors by id (the store's count, kept a
	// minute, is not a get), and no clause Chroma reads the store for.
	var gets []string
	for _, b := range log.bodies {
		if strings.Contains(b, "where") {
			t.Errorf("a search of known terms sent a clause: %s", b)
		}
		if strings.Contains(b, `"ids"`) {
			gets = append(gets, b)
		}
	}
	if len(gets) > 2 {
		t.Errorf("a search of known terms sent %d gets, want 2: %v", len(gets), gets)
	}
	hits, err = s.KeywordSearch(ctx, core.KeywordQuery{Text: "kettle saucer teapot", K: 10})
	slices.Sort(spread)
	if err != nil || !slices.Equal(ids(hits), spread) {
		t.Fatalf("hits = %v (%v), want the 9 kitchen memories", ids(hits), err)
	}
	// A new zanzibar memory is found at once; "kettle" grows common and
	// is left out.
	docs = docs[:0]
	add(2, "a kettle")
	second := add(1, "Zanzibar again")
	if err := s.Put(ctx, docs...); err != nil {
		t.Fatal(err)
	}
	hits, err = s.KeywordSearch(ctx, core.KeywordQuery{Text: "kettle saucer teapot", K: 10})
	if err != nil || len(hits) != 6 {
		t.Fatalf("hits = %v (%v), want the 6 saucer and teapot memories", ids(hits), err)
	}
	if common, _, _, known := s.terms.verdict(termScope(nil), "kettle", time.Now()); !common || !known {
		t.Fatal("kettle should be remembered as common after the write")
	}
	hits, err = s.KeywordSearch(ctx, core.KeywordQuery{Text: "zanzibar", K: 10})
	if want := append(slices.Clone(rare), second...); err != nil || !slices.Equal(ids(hits), slices.Sorted(slices.Values(want))) {
		t.Fatalf("zanzibar after the write: %v (%v), want both zanzibar memories", ids(hits), err)
	}
	// Within a filter's where clause, a write holding the word joins the
	// word's documents when its metadata meets the clause (a memory),
	// and leaves them as they were when not (a chat's turn): either way
	// the next search asks no clause, and finds the new memory.
	memories := core.Filter{Type: core.DocMemory}
	hits, err = s.KeywordSearch(ctx, core.KeywordQuery{Text: "zanzibar", K: 10, Filter: memories})
	if err != nil || len(hits) != 2 {
		t.Fatalf("zanzibar among memories: %v (%v), want both", ids(hits), err)
	}
	docs = docs[:0]
	third := add(1, "zanzibar once more")
	turn := testTurn(core.NewConversationID(), 0, "user", "what about zanzibar", now)
	if err := s.Put(ctx, append(docs, turn)...); err != nil {
		t.Fatal(err)
	}
	if _, docs, fresh, known := s.terms.verdict(termScope(whereOf(memories)), "zanzibar", time.Now()); !fresh || !known || len(docs) != 3 || slices.Contains(docs, turn.ID) {
		t.Fatalf("zanzibar among memories after the write: %v (fresh %v), want its three memories, fresh", docs, fresh)
	}
	log.mu.Lock()
	log.bodies = nil
	log.mu.Unlock()
	hits, err = s.KeywordSearch(ctx, core.KeywordQuery{Text: "zanzibar", K: 10, Filter: memories})
	if err != nil || len(hits) != 3 || !slices.Contains(ids(hits), third[0]) {
		t.Fatalf("zanzibar among memories after the write: %v (%v), want the three", ids(hits), err)
	}
	for _, b := range log.bodies {
		if strings.Contains(b, "where") {
			t.Errorf("a search after this process's write sent a clause: %s", b)
		}
	}
}

// The store's count is reused for a minute, but not an empty store's:
// a memory written after a search of the empty store is found at once.
func TestKeywordSearchAfterFirstWrite(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "firstwrite")
	if hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "zeppelin", K: 5}); err != nil || len(hits) != 0 {
		t.Fatalf("empty store: hits = %d (%v)", len(hits), err)
	}
	memory := testMemory("The user flew in a zeppelin once", time.Now().UTC())
	if err := s.Put(ctx, memory); err != nil {
		t.Fatal(err)
	}
	hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "zeppelin", K: 5})
	if err != nil || len(hits) != 1 || hits[0].ID != memory.ID {
		t.Fatalf("hits = %d (%v), want the memory", len(hits), err)
	}
}

// bodyLog records the bodies of the requests it sends on.
type bodyLog struct {
	mu     sync.Mutex
	bodies []string
	next   http.RoundTripper
}

func (l *bodyLog) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
		l.mu.Lock()
		l.bodies = append(l.bodies, string(data))
		l.mu.Unlock()
	}
	return l.next.RoundTrip(r)
}

// A keyword search within one conversation (a chat's recall) reads the
// conversation's documents once and matches their words here: no
// $contains, whose cost is a read of the store per word. A word in more
// of its documents than maxTermDocs is left out, as elsewhere.
func TestKeywordSearchWithinAConversationReadsItOnce(t *testing.T) {
	ctx := context.Background()
	s := openTestStore(t, "convkw")
	s.kw = keywordLimits{termDocs: 3, conversationTexts: maxConversationTexts}
	now := time.Now().UTC()
	conv := core.NewConversationID()
	var docs []core.Document
	for i, text := range []string{"the zeppelin landed", "a Zeppelin again", "we had coffee", "coffee, coffee", "more coffee", "coffee and a zeppelin"} {
		docs = append(docs, testTurn(conv, i, "user", text, now))
	}
	other := testTurn(core.NewConversationID(), 0, "user", "a zeppelin elsewhere", now)
	if err := s.Put(ctx, append(docs, other)...); err != nil {
		t.Fatal(err)
	}
	log := &bodyLog{next: http.DefaultTransport}
	s.c.http.Transport = log
	hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "zeppelin coffee", K: 10, Filter: core.Filter{Type: core.DocTurn, ConversationID: conv}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hits {
		got = append(got, h.Text)
	}
	slices.Sort(got)
	// coffee is in 4 of the conversation's turns, more than 3: left out.
	if want := []string{"a Zeppelin again", "coffee and a zeppelin", "the zeppelin landed"}; !slices.Equal(got, want) {
		t.Fatalf("hits = %q, want %q", got, want)
	}
	for _, b := range log.bodies {
		if strings.Contains(b, "where_document") {
			t.Errorf("a search within a conversation sent a $contains: %s", b)
		}
	}
	// A conversation longer than the bound is not read whole: it is
	// searched as any filter is, with the same answer.
	s.kw.conversationTexts = len(docs) - 1
	log.bodies = nil
	hits, err = s.KeywordSearch(ctx, core.KeywordQuery{Text: "zeppelin coffee", K: 10, Filter: core.Filter{Type: core.DocTurn, ConversationID: conv}})
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, h := range hits {
		got = append(got, h.Text)
	}
	slices.Sort(got)
	if want := []string{"a Zeppelin again", "coffee and a zeppelin", "the zeppelin landed"}; !slices.Equal(got, want) {
		t.Fatalf("past the bound: hits = %q, want %q", got, want)
	}
	if !slices.ContainsFunc(log.bodies, func(b string) bool { return strings.Contains(b, "where_document") }) {
		t.Error("a conversation past the bound was read whole")
	}
}
