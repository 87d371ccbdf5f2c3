package vecindex

import "fmt"

// Row is what the index holds about a row.
type Row struct {
	Type, Scope, Conversation string
	Code                      Code
}

// Rows returns every row held, by rowid, after checking the index's own
// bookkeeping (segments, positions, heads), so that a test can hold the
// index against the store's durable copy of the codes (an index loaded
// afresh from it).
func (x *Index) Rows() (map[int64]Row, error) {
	x.wait()
	x.mu.RLock()
	defer x.mu.RUnlock()
	names := make(map[uint32]string, len(x.names))
	for s, id := range x.names {
		names[id] = s
	}
	out := make(map[int64]Row, x.rows)
	for si, s := range x.segs {
		if x.bySegment[s.key] != int32(si) {
			return nil, fmt.Errorf("segment %d is not where its key says", si)
		}
		if len(s.heads) != len(s.rowids) || len(s.codes) != len(s.rowids) || len(s.scopes) != len(s.rowids) {
			return nil, fmt.Errorf("segment %d: slices of different lengths", si)
		}
		if err := s.checkLists(x.listMin); err != nil {
			return nil, fmt.Errorf("segment %d: %w", si, err)
		}
		for i, r := range s.rowids {
			if x.pos[r] != (rowRef{int32(si), int32(i)}) {
				return nil, fmt.Errorf("rowid %d at %d/%d, pos says %v", r, si, i, x.pos[r])
			}
			if s.heads[i] != [headWords]uint64(s.codes[i][:headWords]) {
				return nil, fmt.Errorf("rowid %d: head is not its code's", r)
			}
			out[r] = Row{names[s.key.typ], names[s.scopes[i]], names[s.key.conv], s.codes[i]}
		}
	}
	if len(x.pos) != len(out) || x.rows != len(out) {
		return nil, fmt.Errorf("pos has %d rows, rows says %d, segments hold %d", len(x.pos), x.rows, len(out))
	}
	return out, nil
}

// checkLists checks the segment's scope counts and inverted file: every row
// in exactly one list, where its position says.
func (s *codeSegment) checkLists(listMin int) error {
	if len(s.scopeAt) != len(s.rowids) {
		return fmt.Errorf("%d scope positions for %d rows", len(s.scopeAt), len(s.rowids))
	}
	listed := 0
	for sc, l := range s.scopeRows {
		if len(l) == 0 {
			return fmt.Errorf("scope %d listed with no rows", sc)
		}
		for p, i := range l {
			if s.scopes[i] != sc || s.scopeAt[i] != int32(p) {
				return fmt.Errorf("row %d at %d of scope %d's list: scope %d, position %d", i, p, sc, s.scopes[i], s.scopeAt[i])
			}
			listed++
		}
	}
	if listed != len(s.rowids) {
		return fmt.Errorf("scope lists hold %d rows of %d", listed, len(s.rowids))
	}
	v := s.ivf
	if v == nil {
		if len(s.rowids) >= listMin && s.train == nil {
			return fmt.Errorf("%d rows, no inverted file, none being trained", len(s.rowids))
		}
		return nil
	}
	if len(v.at) != len(s.rowids) {
		return fmt.Errorf("%d list positions for %d rows", len(v.at), len(s.rowids))
	}
	seen := 0
	for l, list := range v.lists {
		for i, row := range list {
			if v.at[row] != (listPos{int32(l), int32(i)}) {
				return fmt.Errorf("row %d at %d/%d of the lists, its position says %v", row, l, i, v.at[row])
			}
			if len(v.heads[l]) != len(list) || v.heads[l][i] != s.heads[row] {
				return fmt.Errorf("row %d at %d/%d of the lists: its head there is not its own", row, l, i)
			}
			if len(v.scopes[l]) != len(list) || v.scopes[l][i] != s.scopes[row] {
				return fmt.Errorf("row %d at %d/%d of the lists: its scope there is not its own", row, l, i)
			}
			seen++
		}
	}
	if seen != len(s.rowids) {
		return fmt.Errorf("lists hold %d rows of %d", seen, len(s.rowids))
	}
	return nil
}
