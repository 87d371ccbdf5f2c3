package storagetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

// Backend is what the conformance suite tests: core.Store and the
// embedder record every backend keeps.
type Backend interface {
	core.Store
	CheckEmbedder(ctx context.Context, name string) error
}

// Conformance runs the storage conformance suite: every backend (SQLite
// with sqlite-vec, Chroma) must behave the same way to core. open returns
// a new, empty store for each subtest.
func Conformance(t *testing.T, open func(t *testing.T) Backend) {
	for _, c := range conformanceCases {
		t.Run(c.name, func(t *testing.T) { c.run(t, open(t)) })
	}
}

var conformanceCases = []struct {
	name string
	run  func(t *testing.T, s Backend)
}{
	{"PutGetDeleteByType", testPutGetDelete},
	{"InvalidWriteWritesNothing", testInvalidWrite},
	{"FilteredSearch", testFilteredSearch},
	{"KeywordSearch", testKeywordSearch},
	{"ListByConversationAndPages", testList},
	{"RecentConversations", testRecentConversations},
	{"DeleteWhereAndCascade", testCascade},
	{"StatsAndEmbedder", testStats},
	{"RetentionDeletesAndPrunesHistory", testRetention},
	{"HistoryAndLifecycle", testHistory},
	{"Replace", testReplace},
	{"ListFilters", testListFilters},
	{"CountWithThePagesFilters", testCount},
	{"ForgottenNewestFirst", testForgotten},
	{"CorrectionChainForgotten", testCorrectionChainForgotten},
	{"FilterMeaning", testFilterMeaning},
	{"LastSource", testLastSource},
	{"DeletedSaysWhatWent", testDeletedSaysWhatWent},
}

// base is a fixed time, so that orders are known.
var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func doc(text string, m core.Metadata) core.Document {
	if m.Source == "" {
		m.Source = core.SourceChat
	}
	if m.Scope == "" {
		m.Scope = core.ScopeGlobal
	}
	if m.Type == core.DocMemory && m.Importance == 0 {
		m.Importance = 3
	}
	return core.Document{ID: core.NewDocID(), Text: text, Embedding: embed.HashVector(text), Meta: m}
}

func memory(text string, at time.Time) core.Document {
	return doc(text, core.Metadata{Type: core.DocMemory, Timestamp: at})
}

// timesOf is a time mention whose text holds words of a message, as
// core/when reads them: forgetting must take them with the text.
func timesOf(words string) []core.TimeMention {
	return []core.TimeMention{{Start: base.Add(-24 * time.Hour), End: base, Text: words}}
}

func turn(conv string, i int, role, text string) core.Document {
	return doc(text, core.Metadata{Type: core.DocTurn, Timestamp: base.Add(time.Duration(i) * time.Minute),
		ConversationID: conv, Role: role, TurnIndex: &i})
}

func put(t *testing.T, s Backend, docs ...core.Document) {
	t.Helper()
	if err := s.Put(context.Background(), docs...); err != nil {
		t.Fatal(err)
	}
}

func ids[T any](xs []T, id func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = id(x)
	}
	return out
}

func docIDs(ds []core.Document) []string {
	return ids(ds, func(d core.Document) string { return d.ID })
}

func testPutGetDelete(t *testing.T, s Backend) {
	ctx := context.Background()
	m := memory("Sam likes black coffee", base)
	m.Meta.Tags = []string{"food"}
	tu := turn(core.NewConversationID(), 0, "user", "hello, back since yesterday")
	yesterday := base.In(time.FixedZone("UTC+9", 9*3600)).AddDate(0, 0, -1)
	tu.Meta.Times = []core.TimeMention{{Start: yesterday, End: yesterday.AddDate(0, 0, 1), Text: "yesterday"}}
	put(t, s, m, tu)
	got, err := s.Get(ctx, m.ID)
	if err != nil || got.Text != m.Text || got.Meta.Importance != 3 || !got.Meta.Timestamp.Equal(base) ||
		!slices.Equal(got.Meta.Tags, []string{"food"}) || len(got.Embedding) != core.Dim {
		t.Fatalf("get = %+v, %v", got, err)
	}
	m.Text = "Sam likes green tea"
	put(t, s, m)
	if got, _ := s.Get(ctx, m.ID); got.Text != m.Text {
		t.Fatalf("put did not replace by id: %q", got.Text)
	}
	if err := s.Delete(ctx, tu.ID, core.DocMemory); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("deleting a turn as a memory: %v, want not found", err)
	}
	if err := s.Delete(ctx, m.ID, core.DocMemory); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, m.ID); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("after delete: %v", err)
	}
	got, err = s.Get(ctx, tu.ID)
	if err != nil {
		t.Fatalf("the turn must stay: %v", err)
	}
	if ts := got.Meta.Times; len(ts) != 1 || ts[0].Text != "yesterday" || !ts[0].Start.Equal(yesterday) ||
		!ts[0].End.Equal(yesterday.AddDate(0, 0, 1)) {
		t.Fatalf("the turn's times came back as %+v, want %+v", ts, tu.Meta.Times)
	}
}

func testInvalidWrite(t *testing.T, s Backend) {
	ctx := context.Background()
	good, bad := memory("valid", base), memory("invalid", base)
	bad.Meta.Importance = 99
	if err := s.Put(ctx, good, bad); core.KindOf(err) != core.KindInvalid {
		t.Fatalf("err = %v, want invalid", err)
	}
	if _, err := s.Get(ctx, good.ID); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("a refused batch wrote a document: %v", err)
	}
}

func testFilteredSearch(t *testing.T, s Backend) {
	ctx := context.Background()
	coffee := memory("Sam likes black coffee in the morning", base)
	tea := memory("Sam likes green tea in the afternoon", base)
	tea.Meta.Scope, tea.Meta.Tags = core.EntityScope("sam"), []string{"drinks"}
	tu := turn(core.NewConversationID(), 0, "user", "Sam likes black coffee in the morning")
	put(t, s, coffee, tea, tu)
	q := core.VectorQuery{Vector: embed.HashVector("black coffee"), K: 5}
	hits, err := s.Search(ctx, q)
	if err != nil || len(hits) != 3 || hits[2].ID != tea.ID || hits[0].Distance > hits[1].Distance {
		t.Fatalf("unfiltered: %v %v", hitIDs(hits), err)
	}
	q.Filter = core.Filter{Type: core.DocMemory}
	if hits, _ = s.Search(ctx, q); !slices.Equal(hitIDs(hits), []string{coffee.ID, tea.ID}) {
		t.Fatalf("type filter: %v", hitIDs(hits))
	}
	q.Filter.Scopes = []string{core.EntityScope("sam")}
	if hits, _ = s.Search(ctx, q); !slices.Equal(hitIDs(hits), []string{tea.ID}) {
		t.Fatalf("scope filter: %v", hitIDs(hits))
	}
	q.Filter = core.Filter{Tag: "drinks"}
	if hits, _ = s.Search(ctx, q); !slices.Equal(hitIDs(hits), []string{tea.ID}) || len(hits[0].Embedding) != core.Dim {
		t.Fatalf("tag filter: %v", hitIDs(hits))
	}
	if _, err := s.Search(ctx, core.VectorQuery{Vector: []float32{1}, K: 1}); core.KindOf(err) != core.KindInvalid {
		t.Fatalf("short vector: %v", err)
	}
}

func hitIDs(hs []core.Hit) []string { return ids(hs, func(h core.Hit) string { return h.ID }) }

func testKeywordSearch(t *testing.T, s Backend) {
	ctx := context.Background()
	a := memory("The Zanzibar trip is booked for June", base)
	b := memory("Sam's favourite island is Zanzibar, Zanzibar again and again", base)
	c := memory("Nothing about islands here", base)
	tu := turn(core.NewConversationID(), 0, "user", "Zanzibar, said the user")
	put(t, s, a, b, c, tu)
	hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "zanzibar?", K: 10, Filter: core.Filter{Type: core.DocMemory}})
	if err != nil || len(hits) != 2 || hits[0].BM25 <= 0 || hits[1].BM25 <= 0 {
		t.Fatalf("hits = %v, %v", hits, err)
	}
	if hits[0].ID != b.ID {
		t.Fatalf("the document with the word more often ranks first: got %s", hits[0].Text)
	}
	if len(hits[0].Embedding) != core.Dim {
		t.Fatalf("a keyword hit comes with its embedding (hybrid search compares it): %d", len(hits[0].Embedding))
	}
	if hits, _ := s.KeywordSearch(ctx, core.KeywordQuery{Text: "the and of", K: 10}); len(hits) != 0 {
		t.Fatalf("stop words only: %v", hits)
	}
	// A word matches in capitals too (Chroma's $contains is case-sensitive).
	shout := memory("WE SAILED TO PEMBA ISLANDS", base)
	put(t, s, shout)
	if hits, err := s.KeywordSearch(ctx, core.KeywordQuery{Text: "pemba", K: 10}); err != nil || len(hits) != 1 || hits[0].ID != shout.ID {
		t.Fatalf("a memory in capitals: hits = %v, %v", hits, err)
	}
}

func testList(t *testing.T, s Backend) {
	ctx := context.Background()
	conv := core.NewConversationID()
	var turns []core.Document
	for i := range 5 {
		turns = append(turns, turn(conv, i, "user", "turn"))
	}
	put(t, s, append(turns, turn(core.NewConversationID(), 9, "user", "other"))...)
	got, err := s.List(ctx, core.Filter{ConversationID: conv}, 3)
	if err != nil || !slices.Equal(docIDs(got), []string{turns[4].ID, turns[3].ID, turns[2].ID}) {
		t.Fatalf("list = %v, %v", docIDs(got), err)
	}
	last := got[2]
	next, _ := s.List(ctx, core.Filter{ConversationID: conv, Before: &core.Position{Time: last.Meta.Timestamp, ID: last.ID}}, 10)
	if !slices.Equal(docIDs(next), []string{turns[1].ID, turns[0].ID}) {
		t.Fatalf("next page = %v", docIDs(next))
	}
	one, two := 1, 3
	rng, _ := s.List(ctx, core.Filter{ConversationID: conv, AfterTurn: &one, UpToTurn: &two}, 10)
	if !slices.Equal(docIDs(rng), []string{turns[3].ID, turns[2].ID}) {
		t.Fatalf("turn range = %v", docIDs(rng))
	}
	idx, _ := s.List(ctx, core.Filter{ConversationID: conv, TurnIndexes: []int{0, 4}}, 10)
	if !slices.Equal(docIDs(idx), []string{turns[4].ID, turns[0].ID}) {
		t.Fatalf("turn indexes = %v", docIDs(idx))
	}
}

func testRecentConversations(t *testing.T, s Backend) {
	ctx := context.Background()
	older, newer := core.NewConversationID(), core.NewConversationID()
	put(t, s, turn(older, 0, "user", "What is the capital of France?"), turn(older, 1, "assistant", "Paris."),
		turn(newer, 5, "user", "Hello again"))
	got, err := s.RecentConversations(ctx, 10)
	if err != nil || len(got) != 2 || got[0].ID != newer || got[1].ID != older {
		t.Fatalf("recent = %+v, %v", got, err)
	}
	if got[1].TurnCount != 2 || got[1].Preview != "What is the capital of France?" || !got[1].Timestamp.Equal(base.Add(time.Minute)) {
		t.Fatalf("older = %+v", got[1])
	}
	if got, _ := s.RecentConversations(ctx, 1); len(got) != 1 {
		t.Fatalf("limit: %d", len(got))
	}
}

func testCascade(t *testing.T, s Backend) {
	ctx := context.Background()
	conv := core.NewConversationID()
	t0, t1 := turn(conv, 0, "user", "I moved to Lisbon"), turn(conv, 1, "user", "and I love it")
	learned := memory("The user lives in Lisbon", base)
	learned.Meta.SourceIDs = []string{t0.ID, t1.ID}
	kept := memory("The user has a cat", base)
	put(t, s, t0, t1, learned, kept)
	if err := s.Delete(ctx, t0.ID, core.DocTurn); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, learned.ID); err != nil {
		t.Fatalf("one source remains, the memory must stay: %v", err)
	}
	gone, err := s.DeleteWhere(ctx, core.Filter{ConversationID: conv})
	if err != nil || !slices.Equal(gone.IDs, []string{t1.ID}) || !slices.Equal(gone.Orphans, []string{learned.ID}) {
		t.Fatalf("delete where = %+v, %v", gone, err)
	}
	if _, err := s.Get(ctx, learned.ID); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("the memory of deleted turns must go: %v", err)
	}
	h, _ := s.History(ctx, learned.ID)
	if len(h) != 1 || h[0].Event != core.HistoryDelete || h[0].Reason == "" || h[0].Text != "" {
		t.Fatalf("history of the cascade = %+v", h)
	}
	if _, err := s.Get(ctx, kept.ID); err != nil {
		t.Fatal(err)
	}
	late := memory("Learned after the redaction", base)
	late.Meta.SourceIDs = []string{t1.ID}
	if err := s.Put(ctx, late); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("a memory of deleted turns is refused: %v", err)
	}
}

func testStats(t *testing.T, s Backend) {
	ctx := context.Background()
	put(t, s, memory("one", base), memory("two", base), turn(core.NewConversationID(), 0, "user", "hi"))
	if err := s.CheckEmbedder(ctx, "hash:v1"); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckEmbedder(ctx, "other:v2"); core.KindOf(err) != core.KindInvalid {
		t.Fatalf("another embedder: %v", err)
	}
	st, err := s.Stats(ctx)
	if err != nil || st.Total != 3 || st.ByType[core.DocMemory] != 2 || st.ByType[core.DocTurn] != 1 ||
		st.Embedder != "hash:v1" || st.Dimensions != core.Dim || st.Backend == "" || st.Version == "" {
		t.Fatalf("stats = %+v, %v", st, err)
	}
	// Health's probe: the same backend and version, without counting.
	if status, err := s.Status(ctx); err != nil || status.Backend != s.Backend() || status.Version != st.Version {
		t.Fatalf("status = %+v, %v; stats say %s %s", status, err, st.Backend, st.Version)
	}
}

func testRetention(t *testing.T, s Backend) {
	ctx := context.Background()
	old := memory("An old room memory", base.Add(-48*time.Hour))
	old.Meta.RoomID, old.Meta.Tags, old.Meta.Times = "!room:x", []string{"secret"}, timesOf("yesterday")
	recent := memory("A recent room memory", base)
	recent.Meta.RoomID, recent.Meta.Times = "!room:x", timesOf("last Friday")
	put(t, s, old, recent)
	created := core.HistoryEntry{MemoryID: old.ID, Event: core.HistoryCreate, Time: old.Meta.Timestamp, Text: old.Text, Meta: old.Meta}
	if _, err := s.Apply(ctx, core.Change{History: []core.HistoryEntry{created}}); err != nil {
		t.Fatal(err)
	}
	gone, err := s.DeleteWhere(ctx, core.Filter{OlderThan: base.Add(-time.Hour), AnyRoom: true})
	if err != nil || len(gone.IDs) != 1 {
		t.Fatalf("retention delete = %d, %v", len(gone.IDs), err)
	}
	h, _ := s.History(ctx, old.ID)
	if len(h) != 2 || h[0].Text != "" || len(h[0].Meta.Tags) != 0 || len(h[0].Meta.Times) != 0 || h[1].Event != core.HistoryDelete ||
		h[1].Reason != core.DeletionReason(core.Filter{OlderThan: base}) {
		t.Fatalf("history after the retention delete = %+v", h)
	}
	kept := core.HistoryEntry{MemoryID: recent.ID, Event: core.HistoryCreate, Time: base.Add(-24 * time.Hour), Text: recent.Text, Meta: recent.Meta}
	if _, err := s.Apply(ctx, core.Change{History: []core.HistoryEntry{kept}}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PruneHistory(ctx, base.Add(-time.Hour)); err != nil || n != 1 {
		t.Fatalf("prune = %d, %v", n, err)
	}
	if h, _ := s.History(ctx, recent.ID); len(h) != 1 || h[0].Text != "" || len(h[0].Meta.Times) != 0 || h[0].Event != core.HistoryCreate {
		t.Fatalf("pruned history = %+v", h)
	}
}

func testHistory(t *testing.T, s Backend) {
	ctx := context.Background()
	m := memory("Sam likes coffee", base)
	m.Meta.Tags, m.Meta.Times = []string{"drinks"}, timesOf("since last summer")
	create := core.HistoryEntry{MemoryID: m.ID, Event: core.HistoryCreate, Time: base, Text: m.Text, Meta: m.Meta}
	if _, err := s.Apply(ctx, core.Change{Put: []core.Document{m}, History: []core.HistoryEntry{create}}); err != nil {
		t.Fatal(err)
	}
	patched := m
	patched.Text = "Sam likes tea"
	patch := core.HistoryEntry{MemoryID: m.ID, Event: core.HistoryPatch, Time: base.Add(time.Nanosecond), Text: patched.Text, Meta: patched.Meta}
	if _, err := s.Apply(ctx, core.Change{Put: []core.Document{patched}, History: []core.HistoryEntry{patch}}); err != nil {
		t.Fatal(err)
	}
	h, err := s.History(ctx, m.ID)
	if err != nil || len(h) != 2 || h[0].Event != core.HistoryCreate || h[1].Text != "Sam likes tea" ||
		!h[1].Time.Equal(base.Add(time.Nanosecond)) || !slices.Equal(h[0].Meta.Tags, []string{"drinks"}) {
		t.Fatalf("history = %+v, %v", h, err)
	}
	gone := core.HistoryEntry{MemoryID: m.ID, Event: core.HistoryDelete, Time: base.Add(time.Hour), Meta: m.Meta, Reason: "asked"}
	if _, err := s.Apply(ctx, core.Change{Delete: []string{m.ID}, History: []core.HistoryEntry{gone}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, m.ID); core.KindOf(err) != core.KindNotFound {
		t.Fatalf("deleted memory: %v", err)
	}
	h, _ = s.History(ctx, m.ID)
	if len(h) != 3 || h[2].Event != core.HistoryDelete || h[2].Reason != "asked" {
		t.Fatalf("history after delete = %+v", h)
	}
	for _, e := range h {
		if e.Text != "" || len(e.Meta.Tags) != 0 || len(e.Meta.Times) != 0 {
			t.Fatalf("a deleted memory's words stay in its history: %+v", e)
		}
	}
	if h, err := s.History(ctx, "doc-unknown"); err != nil || len(h) != 0 {
		t.Fatalf("unknown memory: %v, %v", h, err)
	}
}

func testReplace(t *testing.T, s Backend) {
	ctx := context.Background()
	conv := core.NewConversationID()
	sum := func(text string) core.Document {
		i := 0
		return doc(text, core.Metadata{Type: core.DocSummary, Timestamp: base, ConversationID: conv, TurnRange: "0-3", SummaryIndex: &i})
	}
	a, b := sum("first summary"), sum("second summary")
	put(t, s, a)
	if err := s.Replace(ctx, core.Filter{Type: core.DocSummary, ConversationID: conv}, b); err != nil {
		t.Fatal(err)
	}
	got, _ := s.List(ctx, core.Filter{ConversationID: conv}, 10)
	if !slices.Equal(docIDs(got), []string{b.ID}) {
		t.Fatalf("after replace: %v", docIDs(got))
	}
}

func testListFilters(t *testing.T, s Backend) {
	ctx := context.Background()
	expired, fresh := memory("an expired memory", base), memory("a memory for later", base.Add(time.Hour))
	past, future := base.Add(-time.Minute), base.Add(48*time.Hour)
	expired.Meta.ExpiresAt, fresh.Meta.ExpiresAt = &past, &future
	expired.Meta.RoomID, expired.Meta.Tags = "!a:x", []string{"t1", "t2"}
	plain := memory("a plain memory", base.Add(2*time.Hour))
	put(t, s, expired, fresh, plain)
	cases := []struct {
		name string
		f    core.Filter
		want []string
	}{
		{"expired", core.Filter{Expired: base}, []string{expired.ID}},
		{"room", core.Filter{RoomID: "!a:x"}, []string{expired.ID}},
		{"any room", core.Filter{AnyRoom: true}, []string{expired.ID}},
		{"older than", core.Filter{OlderThan: base.Add(90 * time.Minute)}, []string{fresh.ID, expired.ID}},
		{"tag", core.Filter{Tag: "t2"}, []string{expired.ID}},
		{"type and scope", core.Filter{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal, "entity:x"}}, []string{plain.ID, fresh.ID, expired.ID}},
	}
	for _, c := range cases {
		if got, err := s.List(ctx, c.f, 10); err != nil || !slices.Equal(docIDs(got), c.want) {
			t.Errorf("%s: %v, %v; want %v", c.name, docIDs(got), err, c.want)
		}
	}
}
