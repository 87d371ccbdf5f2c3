package chroma

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/ada-chat/ada/core"
)

// Count returns how many documents match f, counting no further than
// limit (0: no limit), as storage.DB.Count. Chroma counts a collection but
// not by metadata: without a filter the count is the collection's; a
// filter Chroma applies (type, scope, room, time) is counted by reading
// the ids only, a page of metaPage a request; the memory page's narrowing
// kept in metaKey's JSON (source, importance, entity, a member's view)
// reads the metadata, page by page, until limit of them match.
func (s *Store) Count(ctx context.Context, f core.Filter, limit int) (int, error) {
	where, inexact := translate(f)
	narrowed := len(inexact) > 0
	if where == nil && !narrowed {
		n, err := s.c.count(ctx, s.docs)
		if limit > 0 {
			n = min(n, limit)
		}
		return n, err
	}
	r := getRequest{Where: where, Include: []string{}}
	if narrowed {
		r.Include = []string{"metadatas"}
	} else if limit > 0 {
		r.Limit = &limit
	}
	n := 0
	conds := f.Conds()
	err := s.c.pages(ctx, s.docs, r, func(got records) (bool, error) {
		if !narrowed {
			n += len(got.IDs)
			return true, nil
		}
		docs, err := documents(got)
		for _, d := range docs {
			if core.AdmitsAll(conds, &d) {
				n++
			}
		}
		return limit <= 0 || n < limit, err
	})
	if err != nil {
		return 0, err
	}
	if limit > 0 {
		n = min(n, limit)
	}
	return n, nil
}

// Forgotten returns up to limit history entries that took a memory away
// (deleted, expired, retired by a correction), newest first, as
// storage.DB.Forgotten. Chroma neither sorts nor limits by order: the
// metadata of every such entry is read (one request a metaPage of them),
// sorted here by seq, then the texts of the limit chosen only.
func (s *Store) Forgotten(ctx context.Context, limit int) ([]core.HistoryEntry, error) {
	if limit == 0 {
		return nil, nil
	}
	got, err := s.c.get(ctx, s.history, getRequest{Include: []string{"metadatas"},
		Where: map[string]any{"event": map[string]any{"$in": []string{core.HistoryDelete, core.HistoryExpire, core.HistoryRetire}}}})
	if err != nil {
		return nil, err
	}
	type entry struct {
		core.HistoryEntry
		id  string
		seq int64
	}
	entries := make([]entry, 0, len(got.IDs))
	for i, id := range got.IDs {
		e, err := historyEntry(id, got.Metadatas[i])
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry{HistoryEntry: e, id: id, seq: number(got.Metadatas[i]["seq"])})
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Or(cmp.Compare(b.seq, a.seq), cmp.Compare(b.id, a.id)) })
	if limit > 0 { // a negative limit is none, as SQLite's LIMIT
		entries = entries[:min(limit, len(entries))]
	}
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.id
	}
	texts, err := s.texts(ctx, s.history, ids)
	if err != nil {
		return nil, err
	}
	out := make([]core.HistoryEntry, len(entries))
	for i, e := range entries {
		e.Text = texts[e.id]
		out[i] = e.HistoryEntry
	}
	return out, nil
}

// historyEntry rebuilds a history entry, without its text, from the
// metadata of its record.
func historyEntry(id string, m map[string]any) (core.HistoryEntry, error) {
	var h core.HistoryEntry
	h.MemoryID, _ = m["memory_id"].(string)
	h.Event, _ = m["event"].(string)
	h.Reason, _ = m["reason"].(string)
	h.Time = time.Unix(0, number(m["ts"])).UTC()
	raw, _ := m[metaKey].(string)
	if err := json.Unmarshal([]byte(raw), &h.Meta); err != nil {
		return h, core.Wrap(core.KindInternal, err, "history %s: corrupt metadata", id)
	}
	return h, nil
}
