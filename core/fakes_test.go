package core

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The fakes below implement core's own ports in memory, for unit tests of
// Chat, generate, saveTurns and summarize. They support what those use and
// fail loudly for the rest, so that a test never passes on a silently
// ignored filter.

// journal records, in order, what a chat did that a test asserts on: the
// store's writes and the events emitted. It is shared by the fakes.
type journal struct {
	mu    sync.Mutex
	lines []string
}

func (j *journal) add(format string, args ...any) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.lines = append(j.lines, fmt.Sprintf(format, args...))
}

func (j *journal) all() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.lines)
}

// errNotFaked is what the fake store returns for what it does not support.
var errNotFaked = errors.New("not supported by the fake store")

// fakeStore is an in-memory Store. putErr, if set, fails every write.
type fakeStore struct {
	j      *journal
	putErr error

	mu      sync.Mutex
	docs    map[string]Document
	history []HistoryEntry
	// windowReads counts the lists of one conversation's turns or
	// summaries (a chat's recent window), scopedWindowReads those of them
	// made in a read scope, and scopedWrites the writes made in one.
	windowReads, scopedWindowReads, scopedWrites int
}

func newFakeStore(j *journal) *fakeStore { return &fakeStore{j: j, docs: map[string]Document{}} }

// describe names documents by type (and role for turns) for the journal.
func describe(docs []Document) string {
	names := make([]string, len(docs))
	for i, d := range docs {
		names[i] = string(d.Meta.Type)
		if d.Meta.Role != "" {
			names[i] += "(" + d.Meta.Role + ")"
		}
		if slices.Contains(d.Meta.Tags, TagAuto) {
			names[i] += "(auto)"
		}
	}
	return strings.Join(names, " ")
}

func (f *fakeStore) Put(ctx context.Context, docs ...Document) error {
	if f.putErr != nil {
		return f.putErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if InReadScope(ctx) {
		f.scopedWrites++
	}
	for _, d := range docs {
		f.docs[d.ID] = d
	}
	f.j.add("put %s", describe(docs))
	return nil
}

func (f *fakeStore) Apply(ctx context.Context, c Change) (Deleted, error) {
	if f.putErr != nil {
		return Deleted{}, f.putErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if InReadScope(ctx) {
		f.scopedWrites++
	}
	for _, id := range c.Delete {
		delete(f.docs, id)
	}
	for _, d := range c.Put {
		f.docs[d.ID] = d
	}
	f.history = append(f.history, c.History...)
	f.j.add("apply %s", describe(c.Put))
	return Deleted{IDs: c.Deleting()}, nil
}

func (f *fakeStore) Replace(ctx context.Context, flt Filter, docs ...Document) error {
	if f.putErr != nil {
		return f.putErr
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for id, d := range f.docs {
		ok, err := matches(flt, d)
		if err != nil {
			return err
		}
		if ok {
			delete(f.docs, id)
		}
	}
	for _, d := range docs {
		f.docs[d.ID] = d
	}
	return nil
}

func (f *fakeStore) Get(ctx context.Context, id string) (Document, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.docs[id]
	if !ok {
		return Document{}, Errorf(KindNotFound, "document %s not found", id)
	}
	return d, nil
}

// selected returns the documents matching flt, newest first (ties by id,
// descending), as List orders them.
func (f *fakeStore) selected(flt Filter) ([]Document, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Document
	for _, d := range f.docs {
		ok, err := matches(flt, d)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b Document) int {
		return cmp.Or(b.Meta.Timestamp.Compare(a.Meta.Timestamp), strings.Compare(b.ID, a.ID))
	})
	return out, nil
}

func (f *fakeStore) List(ctx context.Context, flt Filter, limit int) ([]Document, error) {
	if flt.ConversationID != "" && (flt.Type == DocTurn || flt.Type == DocSummary) {
		f.mu.Lock()
		f.windowReads++
		if InReadScope(ctx) {
			f.scopedWindowReads++
		}
		f.mu.Unlock()
	}
	docs, err := f.selected(flt)
	return docs[:min(limit, len(docs))], err
}

// Search ranks by exact cosine distance, nearest first.
func (f *fakeStore) Search(ctx context.Context, q VectorQuery) ([]Hit, error) {
	docs, err := f.selected(q.Filter)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, len(docs))
	for i, d := range docs {
		hits[i] = Hit{Document: d, Distance: 1 - cosineSimilarity(q.Vector, d.Embedding)}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmp.Compare(a.Distance, b.Distance) })
	return hits[:min(q.K, len(hits))], nil
}

// matches applies the filters chat and summaries use; any other is an error.
func matches(f Filter, d Document) (bool, error) {
	if f.Tag != "" || !f.OlderThan.IsZero() || !f.Expired.IsZero() || f.Before != nil || f.AnyRoom || f.RoomID != "" {
		return false, fmt.Errorf("filter %+v: %w", f, errNotFaked)
	}
	ti := d.Meta.TurnIndex
	switch {
	case f.Type != "" && d.Meta.Type != f.Type,
		len(f.Scopes) > 0 && !slices.Contains(f.Scopes, d.Meta.Scope),
		f.ConversationID != "" && d.Meta.ConversationID != f.ConversationID,
		f.AfterTurn != nil && (ti == nil || *ti <= *f.AfterTurn),
		f.UpToTurn != nil && (ti == nil || *ti > *f.UpToTurn),
		len(f.TurnIndexes) > 0 && (ti == nil || !slices.Contains(f.TurnIndexes, *ti)):
		return false, nil
	}
	return true, nil
}

// byType returns the stored documents of type t, oldest first.
func (f *fakeStore) byType(t DocType) []Document {
	docs, _ := f.selected(Filter{Type: t})
	return reversed(docs)
}

func (f *fakeStore) KeywordSearch(context.Context, KeywordQuery) ([]KeywordHit, error) {
	return nil, errNotFaked // the tests run in SearchVector mode
}
func (f *fakeStore) Delete(context.Context, string, DocType) error { return errNotFaked }
func (f *fakeStore) DeleteWhere(context.Context, Filter) (Deleted, error) {
	return Deleted{}, errNotFaked
}
func (f *fakeStore) History(context.Context, string) ([]HistoryEntry, error) {
	return nil, errNotFaked
}
func (f *fakeStore) PruneHistory(context.Context, time.Time) (int, error) { return 0, errNotFaked }
func (f *fakeStore) Retired(context.Context, ForgetRequest) ([]HistoryEntry, error) {
	return nil, errNotFaked
}
func (f *fakeStore) ForgetHistory(context.Context, []string) error { return errNotFaked }
func (f *fakeStore) Backend() string                               { return "fake" }

func (f *fakeStore) RecentConversations(context.Context, int) ([]Conversation, error) {
	return nil, errNotFaked
}
func (f *fakeStore) Stats(context.Context) (StoreStats, error) { return StoreStats{}, errNotFaked }
func (f *fakeStore) Ping(context.Context) error                { return nil }
func (f *fakeStore) Status(context.Context) (StoreStatus, error) {
	return StoreStatus{Backend: "fake"}, nil
}
func (f *fakeStore) Count(context.Context, Filter, int) (int, error) { return 0, errNotFaked }
func (f *fakeStore) Forgotten(context.Context, int) ([]HistoryEntry, error) {
	return nil, errNotFaked
}

// fakeEmbedder hashes lower-cased words into Dim buckets and normalises:
// texts that share words are near, as with the real hash embedder (which
// core cannot import in its own tests: it imports core).
type fakeEmbedder struct{ err error }

func (e fakeEmbedder) Name() string { return "fake:words" }

func (e fakeEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if e.err != nil {
		return nil, e.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, Dim)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return !('a' <= r && r <= 'z' || '0' <= r && r <= '9') }) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%Dim]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n == 0 {
			v[0], n = 1, 1 // a text without words still gets a unit vector
		}
		for j := range v {
			v[j] = float32(float64(v[j]) / math.Sqrt(n))
		}
		out[i] = v
	}
	return out, nil
}

// reply is what the fake LLM answers to one Chat call: thinking and token
// chunks, streamed in order, then err. before, if set, runs first (a test
// cancels its context there).
type reply struct {
	thinking []string
	tokens   []string
	err      error
	before   func()
}

// fakeLLM answers Chat calls with its replies, in order, and records each
// request and every chunk it managed to emit.
type fakeLLM struct {
	mu       sync.Mutex
	replies  []reply
	requests []LLMRequest
	emitted  []string
}

func (l *fakeLLM) Backend() string            { return "fake" }
func (l *fakeLLM) Model() string              { return "fake-model" }
func (l *fakeLLM) Ping(context.Context) error { return nil }

func (l *fakeLLM) Chat(ctx context.Context, req LLMRequest, emit func(LLMEvent) error) error {
	l.mu.Lock()
	n := len(l.requests)
	l.requests = append(l.requests, req)
	if n >= len(l.replies) {
		l.mu.Unlock()
		return fmt.Errorf("fake LLM: no reply scripted for call %d", n+1)
	}
	r := l.replies[n]
	l.mu.Unlock()
	if r.before != nil {
		r.before()
	}
	send := func(kind LLMEventKind, chunks []string) error {
		for _, c := range chunks {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := emit(LLMEvent{Kind: kind, Text: c}); err != nil {
				return err // unchanged, as the LLM contract says
			}
			l.mu.Lock()
			l.emitted = append(l.emitted, c)
			l.mu.Unlock()
		}
		return nil
	}
	if err := send(LLMThinking, r.thinking); err != nil {
		return err
	}
	if err := send(LLMToken, r.tokens); err != nil {
		return err
	}
	return r.err
}

func (l *fakeLLM) calls() []LLMRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.requests)
}

// fakeSpecialist returns out or err and records the arguments it got;
// with block set it waits for its context to end.
type fakeSpecialist struct {
	name  string
	out   string
	err   error
	block bool

	mu   sync.Mutex
	args []string
}

func (s *fakeSpecialist) Info() SpecialistInfo {
	return SpecialistInfo{Name: s.name, Description: "Looks " + s.name + " up.", Priority: PriorityHigh, Enabled: true,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"],"additionalProperties":false}`)}
}

func (s *fakeSpecialist) Run(ctx context.Context, call SpecialistCall) (string, error) {
	s.mu.Lock()
	s.args = append(s.args, string(call.Args))
	s.mu.Unlock()
	if s.block {
		<-ctx.Done()
		return "", ctx.Err()
	}
	return s.out, s.err
}

// testClock is the fixed "now" of the unit tests.
var testClock = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// tick is a clock that moves on a second at every reading, so that
// documents written one after another have distinct times, as with a real
// clock (the store orders by time).
func tick(start time.Time) func() time.Time {
	var mu sync.Mutex
	n := 0
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		n++
		return start.Add(time.Duration(n) * time.Second)
	}
}

// unitOptions are DefaultOptions with vector search (the fake store has no
// keyword index) and no automatic memory unless a test turns it on.
func unitOptions() Options {
	o := DefaultOptions()
	o.SearchMode = SearchVector
	o.AutoMemory = false
	o.SummaryEveryN = 0
	return o
}

// unit is a Service on fakes and what a test looks at.
type unit struct {
	svc   *Service
	store *fakeStore
	llm   *fakeLLM
	j     *journal
}

func newUnit(t *testing.T, opts Options, llm *fakeLLM, sps ...Specialist) *unit {
	t.Helper()
	j := &journal{}
	reg, err := NewRegistry(sps...)
	if err != nil {
		t.Fatal(err)
	}
	st := newFakeStore(j)
	svc := New(Deps{Store: st, Embedder: fakeEmbedder{}, LLM: llm, Specialists: reg, Now: func() time.Time { return testClock }}, opts)
	t.Cleanup(svc.Close)
	return &unit{svc: svc, store: st, llm: llm, j: j}
}

// recordEmit returns an emit that journals each event and collects them.
func (u *unit) recordEmit(events *[]Event) func(Event) error {
	return func(ev Event) error {
		u.j.add("emit %s", ev.Type)
		*events = append(*events, ev)
		return nil
	}
}

// seed stores docs with their embeddings, bypassing the journal.
func (u *unit) seed(t *testing.T, docs ...Document) {
	t.Helper()
	u.store.mu.Lock()
	defer u.store.mu.Unlock()
	for i := range docs {
		vs, _ := fakeEmbedder{}.Embed(context.Background(), []string{docs[i].Text})
		docs[i].Embedding = vs[0]
		if docs[i].ID == "" {
			docs[i].ID = NewDocID()
		}
		if docs[i].Meta.Scope == "" {
			docs[i].Meta.Scope = ScopeGlobal
		}
		u.store.docs[docs[i].ID] = docs[i]
	}
}

// tokens joins the content of the token events.
func tokens(events []Event) string {
	var b strings.Builder
	for _, ev := range events {
		if ev.Type == EventToken {
			b.WriteString(ev.Content)
		}
	}
	return b.String()
}
