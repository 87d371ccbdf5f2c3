package chroma

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/ada-chat/ada/core"
)

// deleteDocs deletes ids, then the memories left without any of the turns
// they were learned from (the cascade), recording why in their history,
// and returns the latter.
func (s *Store) deleteDocs(ctx context.Context, ids []string, reason string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if err := s.deleteIDs(ctx, ids); err != nil {
		return nil, err
	}
	return s.sweepOrphans(ctx, reason)
}

// deleteIDs deletes the documents ids, and first the vectors held of
// them (conversationVectors): what this Ada deletes leaves nothing of it
// in its memory.
func (s *Store) deleteIDs(ctx context.Context, ids []string) error {
	s.vectors.forget(ids)
	return s.c.deleteIDs(ctx, s.docs, ids)
}

// sweepOrphans deletes every automatic memory none of whose sources is
// stored any more (core.Orphaned). It runs after each deletion and at Open, so a cascade
// a failure cut short is completed. It reads every memory with sources:
// the price of a store without joins, paid by deletions only. It returns
// the ids of the memories it deleted.
func (s *Store) sweepOrphans(ctx context.Context, reason string) ([]string, error) {
	got, err := s.c.get(ctx, s.docs, getRequest{Where: map[string]any{"has_sources": true}, Include: []string{"metadatas"}})
	if err != nil {
		return nil, err
	}
	mems, err := documents(got)
	if err != nil || len(mems) == 0 {
		return nil, err
	}
	var sources []string
	for _, m := range mems {
		sources = append(sources, m.Meta.SourceIDs...)
	}
	slices.Sort(sources)
	sources = slices.Compact(sources)
	present := map[string]bool{}
	for start := 0; start < len(sources); start += getPage {
		have, err := s.c.get(ctx, s.docs, getRequest{IDs: sources[start:min(start+getPage, len(sources))], Include: []string{}})
		if err != nil {
			return nil, err
		}
		for _, id := range have.IDs {
			present[id] = true
		}
	}
	var orphans []string
	var history []core.HistoryEntry
	now := time.Now().UTC()
	for _, m := range mems {
		if core.Orphaned(m.Meta, func(id string) bool { return present[id] }) {
			orphans = append(orphans, m.ID)
			history = append(history, core.OrphanDeleted(m.ID, m.Meta, now, reason))
		}
	}
	if len(orphans) == 0 {
		return nil, nil
	}
	if err := s.deleteIDs(ctx, orphans); err != nil {
		return nil, err
	}
	return orphans, s.appendHistory(ctx, history...)
}

// unitVector is the embedding of every record of the side collections,
// which are never searched by similarity (Chroma wants one).
var unitVector = []float32{1}

// appendHistory writes hs. An entry's id is derived from its content, so a
// retried write does not duplicate it. A memory's end (deletion, expiry)
// is recorded without its words and blanks those of its earlier entries.
func (s *Store) appendHistory(ctx context.Context, hs ...core.HistoryEntry) error {
	if len(hs) == 0 {
		return nil
	}
	r, err := historyRecords(hs)
	if err != nil {
		return err
	}
	if err := s.c.upsert(ctx, s.history, r); err != nil {
		return err
	}
	var ended []string
	for _, h := range hs {
		if core.Forgets(h.Event) {
			ended = append(ended, h.MemoryID)
		}
	}
	return s.forgetChain(ctx, ended...)
}

// forgetChain blanks the words of memoryIDs' history and of the versions
// they replaced by corrections, and theirs in turn: a retire entry's reason
// names the newer memory (core.RetireReason), and the old versions' words
// must not outlive the memory that replaced them. The memories go
// together, getPage at a time: a deletion of many asks as often as one.
func (s *Store) forgetChain(ctx context.Context, memoryIDs ...string) error {
	seen := map[string]bool{}
	var older []string
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			older = append(older, id)
		}
	}
	for _, id := range memoryIDs {
		add(id)
	}
	for len(older) > 0 {
		next := older
		older = nil
		for chunk := range slices.Chunk(next, getPage) {
			if err := s.forget(ctx, map[string]any{"memory_id": map[string]any{"$in": chunk}}); err != nil {
				return err
			}
			reasons := make([]string, len(chunk))
			for i, id := range chunk {
				reasons[i] = core.RetireReason(id)
			}
			got, err := s.c.get(ctx, s.history, getRequest{Include: []string{"metadatas"}, Where: map[string]any{"$and": []any{
				map[string]any{"event": core.HistoryRetire}, map[string]any{"reason": map[string]any{"$in": reasons}}}}})
			if err != nil {
				return err
			}
			for _, m := range got.Metadatas {
				id, _ := m["memory_id"].(string)
				add(id)
			}
		}
	}
	return nil
}

// historyRecords are the records of hs, in order (seq). An entry's id is
// derived from its memory, event and time: the same entry written twice
// (a retry, an import resumed) is one record.
func historyRecords(hs []core.HistoryEntry) (records, error) {
	seq := time.Now().UnixNano()
	var r records
	for i, h := range hs {
		if core.Forgets(h.Event) {
			h.Text, h.Meta.Tags = "", nil
		}
		meta, err := json.Marshal(h.Meta)
		if err != nil {
			return r, core.Wrap(core.KindInternal, err, "encode metadata")
		}
		sum := sha1.Sum([]byte(h.MemoryID + "\x00" + h.Event + "\x00" + h.Time.UTC().Format(time.RFC3339Nano)))
		r.IDs = append(r.IDs, "hist-"+hex.EncodeToString(sum[:12]))
		r.Embeddings, r.Documents = append(r.Embeddings, unitVector), append(r.Documents, h.Text)
		r.Metadatas = append(r.Metadatas, map[string]any{"memory_id": h.MemoryID, "event": h.Event,
			"ts": h.Time.UnixNano(), "seq": seq + int64(i), "reason": h.Reason, metaKey: string(meta),
			"has_room": h.Meta.RoomID != "", "forgotten": h.Text == "" && len(h.Meta.Tags) == 0 && len(h.Meta.Times) == 0})
	}
	return r, nil
}

// forget blanks the words (text, tags and times) of the history entries where
// selects, and returns how many it changed.
func (s *Store) forget(ctx context.Context, where map[string]any) error {
	_, err := s.forgetCount(ctx, where)
	return err
}

func (s *Store) forgetCount(ctx context.Context, where map[string]any) (int, error) {
	got, err := s.c.get(ctx, s.history, getRequest{Where: where, Include: []string{"metadatas"}})
	if err != nil {
		return 0, err
	}
	var r records
	for i, id := range got.IDs {
		m := got.Metadatas[i]
		if forgotten, _ := m["forgotten"].(bool); forgotten {
			continue
		}
		var meta core.Metadata
		raw, _ := m[metaKey].(string)
		if err := json.Unmarshal([]byte(raw), &meta); err != nil {
			return 0, core.Wrap(core.KindInternal, err, "history %s: corrupt metadata", id)
		}
		meta.Tags, meta.Times = nil, nil // a time mention's text quotes the message
		blank, _ := json.Marshal(meta)
		m[metaKey], m["forgotten"] = string(blank), true
		r.IDs, r.Embeddings = append(r.IDs, id), append(r.Embeddings, unitVector)
		r.Documents, r.Metadatas = append(r.Documents, ""), append(r.Metadatas, m)
	}
	return len(r.IDs), s.c.upsert(ctx, s.history, r)
}

// History returns the history of memoryID, oldest first.
func (s *Store) History(ctx context.Context, memoryID string) ([]core.HistoryEntry, error) {
	got, err := s.c.get(ctx, s.history, getRequest{Where: map[string]any{"memory_id": memoryID}, Include: []string{"documents", "metadatas"}})
	if err != nil {
		return nil, err
	}
	type entry struct {
		core.HistoryEntry
		seq int64
	}
	entries := make([]entry, 0, len(got.IDs))
	for i := range got.IDs {
		h, err := historyEntry(got.IDs[i], got.Metadatas[i])
		if err != nil {
			return nil, err
		}
		h.Text = got.Documents[i]
		entries = append(entries, entry{HistoryEntry: h, seq: number(got.Metadatas[i]["seq"])})
	}
	slices.SortFunc(entries, func(a, b entry) int { return int(a.seq - b.seq) })
	out := make([]core.HistoryEntry, len(entries))
	for i, e := range entries {
		out[i] = e.HistoryEntry
	}
	return out, nil
}

// number reads an integer metadata value, which JSON decodes as float64.
func number(v any) int64 {
	switch n := v.(type) {
	case float64:
		return int64(n)
	case json.Number:
		i, _ := strconv.ParseInt(string(n), 10, 64)
		return i
	}
	return 0
}

// PruneHistory blanks the words of the history entries of room memories
// older than cutoff; the entries stay, as the record of what went.
func (s *Store) PruneHistory(ctx context.Context, cutoff time.Time) (int, error) {
	return s.forgetCount(ctx, map[string]any{"$and": []any{
		map[string]any{"has_room": true}, map[string]any{"ts": map[string]any{"$lt": cutoff.UnixNano()}}}})
}

// Retired returns the retire entries that still hold words and that req
// covers, without their text; their metadata comes whole, so its tags and
// times may still quote the memory's words (the caller reads only whom and
// where an entry concerns). The history's metadata is one JSON value
// here, which a where clause cannot read: the entries are selected in Go.
func (s *Store) Retired(ctx context.Context, req core.ForgetRequest) ([]core.HistoryEntry, error) {
	got, err := s.c.get(ctx, s.history, getRequest{Include: []string{"metadatas"}, Where: map[string]any{"$and": []any{
		map[string]any{"event": core.HistoryRetire}, map[string]any{"forgotten": false}}}})
	if err != nil {
		return nil, err
	}
	out := make([]core.HistoryEntry, 0, len(got.IDs))
	for i, id := range got.IDs {
		h, err := historyEntry(id, got.Metadatas[i])
		if err != nil {
			return nil, err
		}
		if req.Covers(h.Meta) {
			out = append(out, h)
		}
	}
	return out, nil
}

// ForgetHistory blanks the words of every history entry of memoryIDs.
func (s *Store) ForgetHistory(ctx context.Context, memoryIDs []string) error {
	for chunk := range slices.Chunk(memoryIDs, getPage) {
		if err := s.forget(ctx, map[string]any{"memory_id": map[string]any{"$in": chunk}}); err != nil {
			return err
		}
	}
	return nil
}
