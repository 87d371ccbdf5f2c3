package chroma

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// The export and import of `ada export`, `ada import` and `ada
// migrate-store`. Chroma has no snapshot: an export of a store other
// replicas are writing may miss what they write meanwhile.

// Counts names the embedder of the stored vectors and counts the
// documents and history entries an export will hold.
func (s *Store) Counts(ctx context.Context) (embedder string, documents, history int, err error) {
	if embedder, err = s.embedder(ctx); err != nil {
		return "", 0, 0, err
	}
	if documents, err = s.c.count(ctx, s.docs); err != nil {
		return "", 0, 0, err
	}
	history, err = s.c.count(ctx, s.history)
	return embedder, documents, history, err
}

// EachDocument calls fn on every document, oldest first (ties by id), with
// its embedding when withVectors. The documents are read a page at a
// time, then sorted: Chroma keeps no write order.
func (s *Store) EachDocument(ctx context.Context, withVectors bool, fn func(core.Document) error) error {
	include := []string{"documents", "metadatas"}
	if withVectors {
		include = append(include, "embeddings")
	}
	docs, err := s.find(ctx, core.Filter{}, include)
	if err != nil {
		return err
	}
	slices.SortFunc(docs, func(a, b core.Document) int {
		return cmp.Or(a.Meta.Timestamp.Compare(b.Meta.Timestamp), cmp.Compare(a.ID, b.ID))
	})
	for _, d := range docs {
		if err := fn(d); err != nil {
			return err
		}
	}
	return nil
}

// EachHistory calls fn on every history entry, memory by memory, each
// memory's oldest first.
func (s *Store) EachHistory(ctx context.Context, fn func(core.HistoryEntry) error) error {
	got, err := s.c.get(ctx, s.history, getRequest{Include: []string{"metadatas"}})
	if err != nil {
		return err
	}
	var memories []string
	seen := map[string]bool{}
	for _, m := range got.Metadatas {
		if id, _ := m["memory_id"].(string); !seen[id] {
			seen[id] = true
			memories = append(memories, id)
		}
	}
	slices.Sort(memories)
	for _, id := range memories {
		hs, err := s.History(ctx, id)
		if err != nil {
			return err
		}
		for _, h := range hs {
			if err := fn(h); err != nil {
				return err
			}
		}
	}
	return nil
}

// Stored returns which of ids are stored.
func (s *Store) Stored(ctx context.Context, ids []string) (map[string]bool, error) {
	found := map[string]bool{}
	for start := 0; start < len(ids); start += getPage {
		got, err := s.c.get(ctx, s.docs, getRequest{IDs: ids[start:min(start+getPage, len(ids))], Include: []string{}})
		if err != nil {
			return nil, err
		}
		for _, id := range got.IDs {
			found[id] = true
		}
	}
	return found, nil
}

// Import writes documents and history entries read from an export, as
// they are, as storage.DB.Import does: a document whose id is stored is
// left as it is, a history entry already there is not added again, so an
// interrupted import resumes. The documents are written before the
// history that refers to them.
func (s *Store) Import(ctx context.Context, docs []core.Document, history []core.HistoryEntry) (storage.ImportResult, error) {
	var res storage.ImportResult
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	stored, err := s.Stored(ctx, ids)
	if err != nil {
		return res, err
	}
	var todo []core.Document
	for _, d := range docs {
		if stored[d.ID] {
			res.DocumentsSkipped++
		} else {
			todo = append(todo, d)
			stored[d.ID] = true // a duplicate within the batch counts once
		}
	}
	r, err := encode(todo)
	if err != nil {
		return res, err
	}
	if err := s.upsertDocs(ctx, r); err != nil {
		return res, err
	}
	s.terms.written(todo, s.kw.termDocs, time.Now())
	res.Documents = len(todo)
	hr, err := historyRecords(history)
	if err != nil {
		return res, err
	}
	var have records
	if len(hr.IDs) > 0 {
		if have, err = s.c.get(ctx, s.history, getRequest{IDs: hr.IDs, Include: []string{}}); err != nil {
			return res, err
		}
	}
	skip := map[string]bool{}
	for _, id := range have.IDs {
		skip[id] = true
	}
	var fresh records
	for i, id := range hr.IDs {
		if skip[id] {
			res.HistorySkipped++
			continue
		}
		skip[id] = true
		fresh.IDs, fresh.Embeddings = append(fresh.IDs, id), append(fresh.Embeddings, unitVector)
		fresh.Documents, fresh.Metadatas = append(fresh.Documents, hr.Documents[i]), append(fresh.Metadatas, hr.Metadatas[i])
	}
	res.History = len(fresh.IDs)
	// Entries are written as exported: a forgotten one is already blank.
	return res, s.c.upsert(ctx, s.history, fresh)
}
