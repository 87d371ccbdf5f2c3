package core

import (
	"maps"
	"slices"
	"testing"
	"time"
)

// TestSchemaMemoTimestampRule holds what SchemaMemo assumes: in every
// schema the timestamp is a date-time string and nothing else, and no rule
// beside the properties' own (a condition, a dependency) could read it.
func TestSchemaMemoTimestampRule(t *testing.T) {
	s := Schemas()
	for _, dt := range DocTypes {
		raw := s.Raw(dt)
		for k := range raw {
			if !slices.Contains([]string{"$schema", "$id", "title", "description", "type", "properties", "required", "additionalProperties"}, k) {
				t.Errorf("%s: schema keyword %q: SchemaMemo assumes only the timestamp's own rule reads it; check, then allow it here", dt, k)
			}
		}
		ts, _ := raw["properties"].(map[string]any)["timestamp"].(map[string]any)
		rule := maps.Clone(ts)
		delete(rule, "description")
		if !maps.Equal(rule, map[string]any{"type": "string", "format": "date-time"}) {
			t.Errorf("%s: timestamp rule %v, SchemaMemo assumes a date-time string alone", dt, ts)
		}
	}
}

// TestSchemaMemo: the memo answers as the schema check does, whatever it
// has seen: a metadata differing from a valid one by its timestamp alone
// passes, any other difference is checked, and a failure is not remembered.
func TestSchemaMemo(t *testing.T) {
	s := Schemas()
	var m SchemaMemo
	ts := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	doc := func(mut func(*Document)) Document {
		d := Document{ID: "doc-00000000-0000-4000-8000-000000000001", Text: "a memory", Embedding: make([]float32, Dim),
			Meta: Metadata{Type: DocMemory, Timestamp: ts, Source: SourceImport, Scope: ScopeGlobal, Importance: 3}}
		if mut != nil {
			mut(&d)
		}
		return d
	}
	cases := []struct {
		name string
		d    Document
	}{
		{"valid", doc(nil)},
		{"another timestamp", doc(func(d *Document) { d.Meta.Timestamp = ts.Add(-40 * 365 * 24 * time.Hour) })},
		{"another id", doc(func(d *Document) { d.ID = "doc-00000000-0000-4000-8000-000000000002" })},
		{"bad id", doc(func(d *Document) { d.ID = "doc-1" })},
		{"blank text", doc(func(d *Document) { d.Text = " " })},
		{"short embedding", doc(func(d *Document) { d.Embedding = d.Embedding[:3] })},
		{"importance out of range", doc(func(d *Document) { d.Meta.Importance = 9 })},
		{"bad scope", doc(func(d *Document) { d.Meta.Scope = "room" })},
		{"bad scope, another timestamp", doc(func(d *Document) { d.Meta.Scope = "room"; d.Meta.Timestamp = ts.Add(time.Hour) })},
		{"field of another type", doc(func(d *Document) { d.Meta.Role = "user" })},
		{"unknown type", doc(func(d *Document) { d.Meta.Type = "note" })},
		{"turn", doc(func(d *Document) {
			i := 0
			d.Meta = Metadata{Type: DocTurn, Timestamp: ts, Source: SourceChat, Scope: ScopeGlobal, Role: "user", TurnIndex: &i,
				ConversationID: "conv-00000000-0000-4000-8000-000000000001"}
		})},
	}
	for range 2 { // the second round with everything valid remembered
		for _, c := range cases {
			want := s.Validate(c.d)
			if got := m.Validate(s, c.d); (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
				t.Errorf("%s: memo %v, schema check %v", c.name, got, want)
			}
		}
	}
	if len(m.seen) != 2 {
		t.Errorf("remembered %d metadata, want 2 (the memory's, the turn's): %v", len(m.seen), slices.Collect(maps.Keys(m.seen)))
	}
}
