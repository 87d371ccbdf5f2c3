package core

import (
	"cmp"
	"slices"
	"strings"
)

// A Filter has one meaning, defined here: Conds spells it as conditions on
// a document's fields, and Admits is that meaning in Go. Every store and
// index translates the same conditions (SQLite into SQL, Chroma into its
// where clause, checking with Holds what it cannot say there), so a new
// Filter field is added to Conds alone. The storage conformance suite
// (storagetest, "FilterMeaning") checks every field on every backend
// against Admits.

// Field is a document attribute a condition reads.
type Field int

// The fields conditions read. A string field is absent when empty, an
// optional one (ExpiresAt, TurnIndex) when nil, Importance when 0: no
// comparison holds on an absent field, as none does on SQL's NULL or on a
// key Chroma's metadata lacks.
const (
	FieldType         Field = iota + 1 // Meta.Type
	FieldScope                         // Meta.Scope
	FieldConversation                  // Meta.ConversationID
	FieldRoom                          // Meta.RoomID
	FieldUser                          // Meta.UserID
	FieldSubject                       // Meta.SubjectUserID
	FieldEntity                        // Meta.Entity
	FieldSource                        // Meta.Source
	FieldTags                          // Meta.Tags, a list (OpHas)
	FieldTime                          // Meta.Timestamp, in Unix nanoseconds
	FieldExpires                       // Meta.ExpiresAt, in Unix nanoseconds
	FieldTurn                          // Meta.TurnIndex
	FieldImportance                    // Meta.Importance
	FieldID                            // the document's id
	fieldEnd
)

// Fields lists every Field, for the stores' tests of their translations.
func Fields() []Field {
	out := make([]Field, 0, fieldEnd-1)
	for f := FieldType; f < fieldEnd; f++ {
		out = append(out, f)
	}
	return out
}

// Op is how a condition compares its field with its value.
type Op int

// The comparisons. Value is a string, an int64 (times in Unix
// nanoseconds), a []string or a []int64 (OpIn).
const (
	OpEq     Op = iota + 1
	OpIn        // the field is one of Value's
	OpLt        // field < Value
	OpLte       // field <= Value
	OpGt        // field > Value
	OpGte       // field >= Value
	OpSet       // the field is present
	OpPrefix    // a string field starts with Value
	OpHas       // a list field holds Value
	OpAny       // one of Sub holds (no Field)
	OpAll       // every one of Sub holds (no Field)
)

// Cond is one condition of a filter.
type Cond struct {
	Field Field
	Op    Op
	Value any
	Sub   []Cond
	// Narrowing marks the memory page's narrowing (Filter's Source,
	// MinImportance, Since, Until, AnyEntity and Visible), which an
	// approximate vector search may leave to its caller: BrowseMemories
	// checks every result again (a store shows too little, never too
	// much).
	Narrowing bool
}

// Conds is f as conditions, all of which a document must satisfy.
func (f Filter) Conds() []Cond {
	cs := make([]Cond, 0, 4)
	add := func(field Field, op Op, v any) { cs = append(cs, Cond{Field: field, Op: op, Value: v}) }
	if f.Type != "" {
		add(FieldType, OpEq, string(f.Type))
	}
	if len(f.Scopes) > 0 {
		add(FieldScope, OpIn, f.Scopes)
	}
	if f.ConversationID != "" {
		add(FieldConversation, OpEq, f.ConversationID)
	}
	if f.RoomID != "" {
		add(FieldRoom, OpEq, f.RoomID)
	}
	if f.AnyRoom {
		add(FieldRoom, OpSet, nil)
	}
	if f.Tag != "" {
		add(FieldTags, OpHas, f.Tag)
	}
	if !f.OlderThan.IsZero() {
		add(FieldTime, OpLt, f.OlderThan.UnixNano())
	}
	if !f.Expired.IsZero() {
		add(FieldExpires, OpLte, f.Expired.UnixNano())
	}
	if f.Before != nil {
		ts := f.Before.Time.UnixNano()
		cs = append(cs, Cond{Op: OpAny, Sub: []Cond{{Field: FieldTime, Op: OpLt, Value: ts},
			{Op: OpAll, Sub: []Cond{{Field: FieldTime, Op: OpEq, Value: ts}, {Field: FieldID, Op: OpLt, Value: f.Before.ID}}}}})
	}
	if f.AfterTurn != nil {
		add(FieldTurn, OpGt, int64(*f.AfterTurn))
	}
	if f.UpToTurn != nil {
		add(FieldTurn, OpLte, int64(*f.UpToTurn))
	}
	if len(f.TurnIndexes) > 0 {
		is := make([]int64, len(f.TurnIndexes))
		for i, n := range f.TurnIndexes {
			is[i] = int64(n)
		}
		add(FieldTurn, OpIn, is)
	}
	return append(cs, f.narrowing()...)
}

// SearchConds is Conds without the memory page's narrowing
// (Cond.Narrowing): the conditions a store's search applies itself,
// leaving the narrowing to its caller.
func (f Filter) SearchConds() []Cond {
	return slices.DeleteFunc(f.Conds(), func(c Cond) bool { return c.Narrowing })
}

// narrowing is the memory page's part of Conds (Cond.Narrowing).
func (f Filter) narrowing() []Cond {
	var cs []Cond
	add := func(c Cond) { c.Narrowing = true; cs = append(cs, c) }
	if f.Source != "" {
		add(Cond{Field: FieldSource, Op: OpEq, Value: f.Source})
	}
	if f.MinImportance > 0 {
		add(Cond{Field: FieldImportance, Op: OpGte, Value: int64(f.MinImportance)})
	}
	if !f.Since.IsZero() {
		add(Cond{Field: FieldTime, Op: OpGte, Value: f.Since.UnixNano()})
	}
	if !f.Until.IsZero() {
		add(Cond{Field: FieldTime, Op: OpLt, Value: f.Until.UnixNano()})
	}
	if f.AnyEntity {
		add(Cond{Field: FieldScope, Op: OpPrefix, Value: EntityScope("")})
	}
	if v := f.Visible; v != nil {
		add(v.cond())
	}
	return cs
}

// cond is Actor.MaySee for a member (Sees) as a condition: what they told,
// what is about them, what their rooms stored.
func (v *Visibility) cond() Cond {
	var either []Cond
	if v.UserID != "" {
		for _, field := range []Field{FieldUser, FieldSubject, FieldEntity} {
			either = append(either, Cond{Field: field, Op: OpEq, Value: v.UserID})
		}
	}
	if len(v.Rooms) > 0 {
		either = append(either, Cond{Field: FieldRoom, Op: OpIn, Value: v.Rooms})
	}
	return Cond{Op: OpAny, Sub: either}
}

// Admits reports whether d satisfies f: the meaning of a filter.
func (f Filter) Admits(d *Document) bool { return AdmitsAll(f.Conds(), d) }

// AdmitsAll reports whether d satisfies every one of cs.
func AdmitsAll(cs []Cond, d *Document) bool {
	for i := range cs {
		if !cs[i].Holds(d) {
			return false
		}
	}
	return true
}

// Holds reports whether d satisfies c. It reads d's fields unboxed: it
// runs for every candidate of a search.
func (c *Cond) Holds(d *Document) bool {
	switch c.Op {
	case OpAny:
		for i := range c.Sub {
			if c.Sub[i].Holds(d) {
				return true
			}
		}
		return false
	case OpAll:
		return AdmitsAll(c.Sub, d)
	}
	switch c.Field {
	case FieldTags: // the only list
		return (c.Op == OpSet && len(d.Meta.Tags) > 0) || (c.Op == OpHas && slices.Contains(d.Meta.Tags, c.Value.(string)))
	case FieldTime, FieldExpires, FieldTurn, FieldImportance:
		n, ok := intField(d, c.Field)
		return ok && holds(c.Op, n, c.Value)
	}
	v, ok := stringField(d, c.Field)
	if !ok {
		return false
	}
	if c.Op == OpPrefix {
		return strings.HasPrefix(v, c.Value.(string))
	}
	return holds(c.Op, v, c.Value)
}

// holds compares a present field's value v with want by op.
func holds[T cmp.Ordered](op Op, v T, want any) bool {
	switch op {
	case OpSet:
		return true
	case OpIn:
		return slices.Contains(want.([]T), v)
	case OpEq:
		return v == want.(T)
	case OpLt:
		return v < want.(T)
	case OpLte:
		return v <= want.(T)
	case OpGt:
		return v > want.(T)
	case OpGte:
		return v >= want.(T)
	}
	return false
}

// stringField is d's value of a string field and whether it is present
// (not empty).
func stringField(d *Document, field Field) (string, bool) {
	m := &d.Meta
	var s string
	switch field {
	case FieldType:
		s = string(m.Type)
	case FieldScope:
		s = m.Scope
	case FieldConversation:
		s = m.ConversationID
	case FieldRoom:
		s = m.RoomID
	case FieldUser:
		s = m.UserID
	case FieldSubject:
		s = m.SubjectUserID
	case FieldEntity:
		s = m.Entity
	case FieldSource:
		s = m.Source
	case FieldID:
		s = d.ID
	}
	return s, s != ""
}

// intField is d's value of a number field (times in Unix nanoseconds) and
// whether it is present.
func intField(d *Document, field Field) (int64, bool) {
	m := &d.Meta
	switch field {
	case FieldTime:
		return m.Timestamp.UnixNano(), true
	case FieldExpires:
		if m.ExpiresAt != nil {
			return m.ExpiresAt.UnixNano(), true
		}
	case FieldTurn:
		if m.TurnIndex != nil {
			return int64(*m.TurnIndex), true
		}
	case FieldImportance:
		return int64(m.Importance), m.Importance != 0
	}
	return 0, false
}
