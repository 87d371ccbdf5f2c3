package vecindex

import "slices"

// Filter is the part of a query the index filters on.
// An empty field does not filter.
type Filter struct {
	Type         string
	Scopes       []string
	Conversation string
}

// resolvedFilter is a Filter in the index's name ids; anyID matches
// every row, and nil scopes every scope.
type resolvedFilter struct {
	typ, conv uint32
	scopes    []uint32
}

const anyID = ^uint32(0)

// resolve turns f into the index's ids; false when no row can match (a
// type, conversation or every scope the index has never seen). x.mu must be
// held.
func (x *Index) resolve(f Filter) (resolvedFilter, bool) {
	rf := resolvedFilter{typ: anyID, conv: anyID}
	var ok bool
	if f.Type != "" {
		if rf.typ, ok = x.names[f.Type]; !ok {
			return rf, false
		}
	}
	if f.Conversation != "" {
		if rf.conv, ok = x.names[f.Conversation]; !ok {
			return rf, false
		}
	}
	for _, s := range f.Scopes {
		// Once each: a search reads a scope's rows through its list.
		if id, ok := x.names[s]; ok && !slices.Contains(rf.scopes, id) {
			rf.scopes = append(rf.scopes, id)
		}
	}
	return rf, len(f.Scopes) == 0 || len(rf.scopes) > 0
}

// holdsSegment reports whether the rows of a segment are of the filter's
// type and conversation.
func (rf resolvedFilter) holdsSegment(key segmentKey) bool {
	return (rf.typ == anyID || key.typ == rf.typ) && (rf.conv == anyID || key.conv == rf.conv)
}

// holdsScope reports whether a row of this scope is within the filter's
// scopes.
func (rf resolvedFilter) holdsScope(scope uint32) bool {
	return rf.scopes == nil || slices.Contains(rf.scopes, scope)
}

// segments appends to dst the non-empty segments of rf's type and
// conversation: one lookup when the filter names both. x.mu must be held.
func (x *Index) segments(rf resolvedFilter, dst []*codeSegment) []*codeSegment {
	if rf.typ != anyID && rf.conv != anyID {
		if si, ok := x.bySegment[segmentKey{rf.typ, rf.conv}]; ok && len(x.segs[si].rowids) > 0 {
			dst = append(dst, x.segs[si])
		}
		return dst
	}
	for _, s := range x.segs {
		if len(s.rowids) > 0 && rf.holdsSegment(s.key) {
			dst = append(dst, s)
		}
	}
	return dst
}

// Keep keeps the items whose rows (rowid gives an item's) are in x and
// within f, in order, in items' own array. Rows the index does not hold
// (deleted, or committed a moment ago and not yet applied) are left out.
func Keep[T any](x *Index, items []T, f Filter, rowid func(*T) int64) []T {
	x.wait()
	x.mu.RLock()
	defer x.mu.RUnlock()
	rf, ok := x.resolve(f)
	if !ok {
		return items[:0]
	}
	kept := items[:0]
	for i := range items {
		ref, ok := x.pos[rowid(&items[i])]
		if !ok {
			continue
		}
		if s := x.segs[ref.seg]; !rf.holdsSegment(s.key) || !rf.holdsScope(s.scopes[ref.i]) {
			continue
		}
		kept = append(kept, items[i])
	}
	return kept
}

// Within counts the rows within f and the rows held, and returns the rowids
// of those within f, in no order, unless there are more than max of them
// (then nil). It reads the segments' sizes, and their scopes' lists when f
// has scopes.
func (x *Index) Within(f Filter, max int) (rowids []int64, n, total int) {
	x.wait()
	x.mu.RLock()
	defer x.mu.RUnlock()
	rf, ok := x.resolve(f)
	if !ok {
		return nil, 0, x.rows
	}
	var segsBuf [8]*codeSegment
	segs := x.segments(rf, segsBuf[:0])
	for _, s := range segs {
		n += s.admits(rf)
	}
	if n > max {
		return nil, n, x.rows
	}
	rowids = make([]int64, 0, n)
	for _, s := range segs {
		if rf.scopes == nil {
			rowids = append(rowids, s.rowids...)
			continue
		}
		for _, sc := range rf.scopes {
			for _, i := range s.scopeRows[sc] {
				rowids = append(rowids, s.rowids[i])
			}
		}
	}
	return rowids, n, x.rows
}
