package storagetest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/embed"
)

// filterDocs are documents whose fields take every value the filter
// cases tell apart: types, scopes, conversations, rooms, tags, times
// (pairs share a timestamp, for a cursor's tie-break), expiries, turn
// indexes, sources, importances, tellers, subjects and entities.
func filterDocs(convs [2]string) []core.Document {
	rooms := []string{"", "!r1:x", "!r2:x"}
	users := []string{"", "@ann:x", "@bob:x"}
	var docs []core.Document
	for i := range 24 {
		d := memory(fmt.Sprintf("memory %d about tea", i), base.Add(time.Duration(i/2)*time.Minute))
		m := &d.Meta
		switch i % 3 {
		case 1:
			m.Entity = "@ann:x"
			m.Scope = core.EntityScope(m.Entity)
		case 2:
			m.Entity = "@bob:x"
			m.Scope = core.EntityScope(m.Entity)
		}
		m.Source = []string{core.SourceChat, core.SourceImport, core.SourceSystem, core.SourceChat}[i%4]
		m.Importance = 1 + i%5
		m.RoomID = rooms[i%len(rooms)]
		m.UserID = users[(i/3)%len(users)]
		m.SubjectUserID = users[(i/5)%len(users)]
		if i%4 == 0 {
			m.Tags = []string{"t1"}
		} else if i%4 == 1 {
			m.Tags = []string{"t2", "t1"}
		}
		if i%3 == 0 {
			at := base.Add(time.Duration(i) * time.Minute)
			m.ExpiresAt = &at
		}
		if i%5 == 0 {
			m.ConversationID = convs[i%2]
		}
		docs = append(docs, d)
	}
	for i := range 12 {
		d := turn(convs[i%2], i/2, []string{"user", "assistant"}[i%2], fmt.Sprintf("turn %d about tea", i))
		d.Meta.RoomID = rooms[i%len(rooms)]
		d.Meta.UserID = users[i%len(users)]
		docs = append(docs, d)
	}
	// Documents nearest to the query (testFilterMeaning) outside most
	// filters: an index that ignored a field would fill a search's
	// candidates with them.
	for i := range 64 {
		docs = append(docs, memory(fmt.Sprintf("tea %d", i), base.Add(-time.Hour)))
	}
	for i := range 3 {
		d := doc(fmt.Sprintf("summary %d about tea", i), core.Metadata{Type: core.DocSummary, Timestamp: base.Add(time.Duration(i) * time.Hour),
			ConversationID: convs[i%2], RoomID: rooms[i], TurnRange: "0-3"})
		d.Embedding = embed.HashVector(d.Text)
		docs = append(docs, d)
	}
	return docs
}

// FilterCorpus is the filter cases' documents and the cases, for a
// backend's own check of how it says a filter (its query language
// against its evaluation of it).
func FilterCorpus(convs [2]string) ([]core.Document, []core.Filter) {
	docs := filterDocs(convs)
	return docs, filterCases(docs, convs)
}

// filterCases exercise every field of core.Filter, alone and together
// (testFilterMeaning checks that each changes what a case selects).
func filterCases(docs []core.Document, convs [2]string) []core.Filter {
	at := func(n int) *int { return &n }
	cursor := docs[9] // docs[8] shares its timestamp
	return []core.Filter{
		{},
		{Type: core.DocMemory},
		{Type: core.DocTurn},
		{Scopes: []string{core.ScopeGlobal}},
		{Scopes: []string{core.ScopeGlobal, core.EntityScope("@ann:x")}},
		{ConversationID: convs[0]},
		{RoomID: "!r1:x"},
		{AnyRoom: true},
		{Type: core.DocSummary, AnyRoom: true},
		{Tag: "t1"},
		{Tag: "t2"},
		{OlderThan: base.Add(5 * time.Minute)},
		{AfterTurn: at(2)},
		{UpToTurn: at(3)},
		{ConversationID: convs[1], AfterTurn: at(1), UpToTurn: at(4)},
		{TurnIndexes: []int{0, 3}},
		{ConversationID: convs[0], TurnIndexes: []int{1, 2, 5}},
		{Expired: base.Add(10 * time.Minute)},
		{Before: &core.Position{Time: cursor.Meta.Timestamp, ID: cursor.ID}},
		{Type: core.DocMemory, Before: &core.Position{Time: docs[8].Meta.Timestamp, ID: docs[8].ID}},
		{Source: core.SourceImport},
		{MinImportance: 4},
		{Since: base.Add(3 * time.Minute)},
		{Until: base.Add(7 * time.Minute)},
		{Since: base.Add(2 * time.Minute), Until: base.Add(9 * time.Minute)},
		{AnyEntity: true},
		{Visible: &core.Visibility{UserID: "@ann:x"}},
		{Visible: &core.Visibility{UserID: "@bob:x", Rooms: []string{"!r2:x"}}},
		{Visible: &core.Visibility{Rooms: []string{"!r1:x"}}},
		{Type: core.DocMemory, Scopes: []string{core.ScopeGlobal}, Source: core.SourceChat, MinImportance: 2, AnyRoom: true},
		{Type: core.DocMemory, AnyEntity: true, Tag: "t1", Since: base.Add(time.Minute), Visible: &core.Visibility{UserID: "@ann:x", Rooms: []string{"!r1:x"}}},
		{Type: core.DocTurn, RoomID: "!r2:x", OlderThan: base.Add(4 * time.Minute)},
	}
}

// testFilterMeaning: every backend selects what core.Filter.Admits, the
// one meaning of a filter, admits, for every field of core.Filter: List
// and Count exactly; a vector search at least that and no more than the
// filter without the memory page's narrowing (core.Cond.Narrowing), which
// an approximate search may leave to its caller, and as many as the filter
// holds. Run twice, so that a store's cache of documents answers the
// second.
func testFilterMeaning(t *testing.T, s Backend) {
	ctx := context.Background()
	convs := [2]string{core.NewConversationID(), core.NewConversationID()}
	docs := filterDocs(convs)
	put(t, s, docs...)
	cases := filterCases(docs, convs)
	checkEveryFieldMatters(t, docs, cases)
	// A backend whose vector search is approximate even at this size
	// (Chroma's HNSW) is checked for never returning too much only.
	a, ok := s.(interface{ ApproximateSearch() bool })
	complete := !ok || !a.ApproximateSearch()
	for _, f := range cases {
		want := admitted(docs, f.Conds())
		name := fmt.Sprintf("%+v", f)
		got, err := s.List(ctx, f, 1000)
		if err != nil || !sameIDs(docIDs(got), want) {
			t.Errorf("List(%s) = %v, %v\nwant %v", name, sorted(docIDs(got)), err, want)
		}
		if n, err := s.Count(ctx, f, 0); err != nil || n != len(want) {
			t.Errorf("Count(%s) = %d, %v; want %d", name, n, err, len(want))
		}
		var strict []core.Cond
		for _, c := range f.Conds() {
			if !c.Narrowing {
				strict = append(strict, c)
			}
		}
		atMost := admitted(docs, strict)
		for range 2 {
			hits, err := s.Search(ctx, core.VectorQuery{Filter: f, Vector: embed.HashVector("tea"), K: len(docs)})
			got := ids(hits, func(h core.Hit) string { return h.ID })
			if err != nil || (complete && !subset(want, got)) || !subset(got, atMost) {
				t.Errorf("Search(%s) = %v, %v\nwant at least %v, at most %v", name, sorted(got), err, want, atMost)
			}
			// As many as the filter holds, however many nearer documents
			// it leaves out.
			k := max(1, len(want))
			hits, err = s.Search(ctx, core.VectorQuery{Filter: f, Vector: embed.HashVector("tea"), K: k})
			got = ids(hits, func(h core.Hit) string { return h.ID })
			if err != nil || (complete && len(got) < min(k, len(want))) || !subset(got, atMost) {
				t.Errorf("Search(%s, k=%d) = %v, %v\nwant %d of at most %v", name, k, sorted(got), err, min(k, len(want)), atMost)
			}
		}
	}
}

// checkEveryFieldMatters fails when a field of core.Filter is set by no
// case that it changes: a new field needs a case, which then checks it on
// every backend.
func checkEveryFieldMatters(t *testing.T, docs []core.Document, cases []core.Filter) {
	typ := reflect.TypeFor[core.Filter]()
	for i := range typ.NumField() {
		field := typ.Field(i)
		matters := slices.ContainsFunc(cases, func(f core.Filter) bool {
			v := reflect.ValueOf(&f).Elem().Field(i)
			if v.IsZero() {
				return false
			}
			without := f
			reflect.ValueOf(&without).Elem().Field(i).SetZero()
			return !slices.Equal(admitted(docs, f.Conds()), admitted(docs, without.Conds()))
		})
		if !matters {
			t.Errorf("no filter case tests core.Filter.%s: add one that it changes (filterCases)", field.Name)
		}
	}
}

func admitted(docs []core.Document, conds []core.Cond) []string {
	out := []string{}
	for i := range docs {
		if core.AdmitsAll(conds, &docs[i]) {
			out = append(out, docs[i].ID)
		}
	}
	return sorted(out)
}

func sorted(xs []string) []string {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs
}

func sameIDs(got, want []string) bool { return slices.Equal(sorted(got), want) }

func subset(xs, of []string) bool {
	return !slices.ContainsFunc(xs, func(x string) bool { return !slices.Contains(of, x) })
}
