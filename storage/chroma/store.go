package chroma

import (
	"cmp"
	"context"
	"net/http"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ada-chat/ada/core"
)

// Collection names: the documents (SPEC: "conversations"), memory history,
// and the store's own records (the embedder).
const (
	docsName    = "conversations"
	historyName = "conversations_history"
	metaName    = "conversations_meta"
)

// Store is core.Store on a Chroma server.
type Store struct {
	c                     *client
	url                   string // without credentials, for Stats
	docs, history, stmeta string // collection ids
	// readWhole: up to this many documents, List and RecentConversations
	// read every match at once rather than back in time (readBack;
	// metaPage; tests lower it to test the spans on a few documents).
	readWhole int
	kw        keywordLimits
	terms     *termCache    // whether keyword terms are too common, lately
	size      *storeSize    // the documents' count, lately
	shares    *filterShares // the share of the store a where clause selects, lately
	wideMin   int           // wideMinDocs (tests lower it)
	behind    *background   // the keyword terms' refreshes behind the searches (refreshStale)
	vectors   *conversationVectors
	scopeMax  int // scopeReadMax (tests lower it)
}

var _ core.Store = (*Store)(nil)

// Open connects to the Chroma server at rawURL (VECTORDB_URL; the query
// parameters tenant and database choose other than Chroma's defaults),
// creates the database and collections it lacks, and completes any
// cascade an earlier process left unfinished (sweepOrphans).
func Open(ctx context.Context, rawURL string, opts ...Option) (*Store, error) {
	c, tenant, database, err := newClient(rawURL)
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(c)
	}
	if _, err := c.heartbeat(ctx); err != nil {
		return nil, err
	}
	if err := c.ensureDatabase(ctx, tenant, database); err != nil {
		return nil, err
	}
	s := &Store{c: c, url: c.root, readWhole: metaPage, kw: keywordLimits{termDocs: maxTermDocs, conversationTexts: maxConversationTexts},
		terms: &termCache{}, size: &storeSize{}, shares: &filterShares{}, wideMin: wideMinDocs, behind: newBackground(),
		vectors: newConversationVectors(), scopeMax: scopeReadMax}
	for _, x := range []struct {
		name string
		id   *string
	}{{docsName, &s.docs}, {historyName, &s.history}, {metaName, &s.stmeta}} {
		if *x.id, err = c.collection(ctx, x.name, x.name == docsName); err != nil {
			return nil, err
		}
	}
	if _, err := s.sweepOrphans(ctx, ""); err != nil {
		return nil, err
	}
	if err := s.scrubRetireReasons(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Close stops the refreshes running behind the searches, and waits for
// them, and drops the vectors held; the server keeps the data.
func (s *Store) Close() error {
	s.behind.stop()
	s.vectors.close()
	return nil
}

// Ping checks that the server answers its heartbeat.
func (s *Store) Ping(ctx context.Context) error {
	_, err := s.c.heartbeat(ctx)
	return err
}

// encode validates docs and turns them into upsert columns.
func encode(docs []core.Document) (records, error) {
	r := records{IDs: make([]string, 0, len(docs))}
	for _, d := range docs {
		if err := core.Schemas().Validate(d); err != nil {
			return records{}, err
		}
		if len(d.Embedding) != core.Dim {
			return records{}, core.Errorf(core.KindInvalid, "document %s: embedding has %d dimensions, want %d", d.ID, len(d.Embedding), core.Dim)
		}
		d.Meta.Timestamp = d.Meta.Timestamp.UTC()
		m, err := chromaMeta(d)
		if err != nil {
			return records{}, err
		}
		r.IDs, r.Documents = append(r.IDs, d.ID), append(r.Documents, d.Text)
		r.Embeddings, r.Metadatas = append(r.Embeddings, d.Embedding), append(r.Metadatas, m)
	}
	return r, nil
}

// Put inserts or replaces docs (see Apply).
func (s *Store) Put(ctx context.Context, docs ...core.Document) error {
	_, err := s.Apply(ctx, core.Change{Put: docs})
	return err
}

// Apply writes c in the order doc.go explains: the documents (upserted),
// then the deletions with their cascade, then the history. A retry of a
// failed Apply makes the same writes again, harmlessly.
func (s *Store) Apply(ctx context.Context, c core.Change) (core.Deleted, error) {
	r, err := encode(c.Put)
	if err != nil {
		return core.Deleted{}, err
	}
	batch := make(map[string]bool, len(r.IDs))
	for _, id := range r.IDs {
		batch[id] = true
	}
	for _, d := range c.Put {
		if err := s.checkSourcesRemain(ctx, d, batch); err != nil {
			return core.Deleted{}, err
		}
	}
	if err := s.upsertDocs(ctx, r); err != nil {
		return core.Deleted{}, err
	}
	s.terms.written(c.Put, s.kw.termDocs, time.Now())
	gone := core.Deleted{IDs: c.Deleting()}
	if gone.Orphans, err = s.deleteDocs(ctx, gone.IDs, c.Reason); err != nil {
		return core.Deleted{}, err
	}
	if err := s.appendHistory(ctx, c.History...); err != nil {
		return core.Deleted{}, err
	}
	return gone, nil
}

// upsertDocs writes r in pages.
func (s *Store) upsertDocs(ctx context.Context, r records) error {
	for start := 0; start < len(r.IDs); start += getPage / 10 {
		end := min(start+getPage/10, len(r.IDs))
		err := s.c.upsert(ctx, s.docs, records{IDs: r.IDs[start:end], Embeddings: r.Embeddings[start:end],
			Documents: r.Documents[start:end], Metadatas: r.Metadatas[start:end]})
		if err != nil {
			return err
		}
	}
	return nil
}

// checkSourcesRemain refuses a memory none of whose sources is stored
// (core.Orphaned), the documents of the same write (batch) counting as
// stored.
func (s *Store) checkSourcesRemain(ctx context.Context, d core.Document, batch map[string]bool) error {
	if len(d.Meta.SourceIDs) == 0 || slices.ContainsFunc(d.Meta.SourceIDs, func(id string) bool { return batch[id] }) {
		return nil
	}
	got, err := s.c.get(ctx, s.docs, getRequest{IDs: d.Meta.SourceIDs, Include: []string{}})
	if err != nil {
		return err
	}
	if core.Orphaned(d.Meta, func(id string) bool { return slices.Contains(got.IDs, id) }) {
		return core.SourcesGone(d.ID)
	}
	return nil
}

// Get returns the document id, with its embedding.
func (s *Store) Get(ctx context.Context, id string) (core.Document, error) {
	got, err := s.c.get(ctx, s.docs, getRequest{IDs: []string{id}, Include: []string{"documents", "metadatas", "embeddings"}})
	if err != nil {
		return core.Document{}, err
	}
	if len(got.IDs) == 0 {
		return core.Document{}, core.Errorf(core.KindNotFound, "document %s not found", id)
	}
	docs, err := documents(got)
	if err != nil {
		return core.Document{}, err
	}
	return docs[0], nil
}

// Delete removes the document id only if it has type t.
func (s *Store) Delete(ctx context.Context, id string, t core.DocType) error {
	d, err := s.Get(ctx, id)
	if err == nil && t != "" && d.Meta.Type != t {
		err = core.Errorf(core.KindNotFound, "%s %s not found", t, id)
	}
	if err != nil {
		return err
	}
	_, err = s.deleteDocs(ctx, []string{id}, "")
	return err
}

// DeleteWhere removes every document matching f; the memories among them
// get a history entry saying why, after they are gone.
func (s *Store) DeleteWhere(ctx context.Context, f core.Filter) (core.Deleted, error) {
	docs, err := s.find(ctx, f, []string{"metadatas"})
	if err != nil {
		return core.Deleted{}, err
	}
	ids := make([]string, len(docs))
	var history []core.HistoryEntry
	now := time.Now().UTC()
	for i, d := range docs {
		ids[i] = d.ID
		if d.Meta.Type == core.DocMemory {
			history = append(history, core.HistoryEntry{MemoryID: d.ID, Event: core.HistoryDelete, Time: now, Meta: d.Meta, Reason: core.DeletionReason(f)})
		}
	}
	orphans, err := s.deleteDocs(ctx, ids, "")
	if err != nil {
		return core.Deleted{}, err
	}
	if err := s.appendHistory(ctx, history...); err != nil {
		return core.Deleted{}, err
	}
	return core.Deleted{IDs: ids, Orphans: orphans}, nil
}

// Replace inserts docs, then deletes what else matches f: a reader sees the
// old and the new documents for a moment, never neither.
func (s *Store) Replace(ctx context.Context, f core.Filter, docs ...core.Document) error {
	if whereOf(f) == nil {
		return core.Errorf(core.KindInternal, "replace needs a filter")
	}
	r, err := encode(docs)
	if err != nil {
		return err
	}
	if err := s.upsertDocs(ctx, r); err != nil {
		return err
	}
	s.terms.written(docs, s.kw.termDocs, time.Now())
	old, err := s.find(ctx, f, []string{"metadatas"})
	if err != nil {
		return err
	}
	keep := make(map[string]bool, len(r.IDs))
	for _, id := range r.IDs {
		keep[id] = true
	}
	var gone []string
	var history []core.HistoryEntry
	now := time.Now().UTC()
	for _, d := range old {
		if keep[d.ID] {
			continue
		}
		gone = append(gone, d.ID)
		if d.Meta.Type == core.DocMemory {
			history = append(history, core.HistoryEntry{MemoryID: d.ID, Event: core.HistoryDelete, Time: now, Meta: d.Meta, Reason: core.DeletionReason(f)})
		}
	}
	if _, err := s.deleteDocs(ctx, gone, ""); err != nil {
		return err
	}
	return s.appendHistory(ctx, history...)
}

// find returns every document matching f (Chroma's where, then matches),
// with the columns of include.
func (s *Store) find(ctx context.Context, f core.Filter, include []string) ([]core.Document, error) {
	if !slices.Contains(include, "metadatas") {
		include = append(include, "metadatas")
	}
	got, err := s.c.get(ctx, s.docs, getRequest{Where: whereOf(f), Include: include})
	if err != nil {
		return nil, err
	}
	docs, err := documents(got)
	if err != nil {
		return nil, err
	}
	conds := f.Conds()
	return slices.DeleteFunc(docs, func(d core.Document) bool { return !core.AdmitsAll(conds, &d) }), nil
}

// List returns up to limit documents matching f, newest first, without
// their embeddings. Chroma does not sort: the metadata of the matches is
// read (back in time from now or from f's cursor until it holds limit of
// them, readBack, unless f is one conversation's), sorted here, then the
// texts of the limit chosen only.
func (s *Store) List(ctx context.Context, f core.Filter, limit int) ([]core.Document, error) {
	if limit == 0 {
		return nil, nil
	}
	anchor := time.Now()
	if f.Before != nil && f.Before.Time.Before(anchor) {
		anchor = f.Before.Time
	}
	if !f.OlderThan.IsZero() && f.OlderThan.Before(anchor) {
		anchor = f.OlderThan
	}
	docs, whole, err := s.inConversation(ctx, f)
	if err != nil {
		return nil, err
	}
	if whole {
		return listConversation(docs, limit), nil
	}
	if f.ConversationID != "" || limit < 0 {
		// A conversation is small (and may be older than many spans), a
		// negative limit wants every match: one read.
		docs, err = s.find(ctx, f, nil)
	} else {
		conds := f.Conds()
		err = s.readBack(ctx, whereOf(f), anchor, func(got []core.Document) bool {
			docs = slices.DeleteFunc(got, func(d core.Document) bool { return !core.AdmitsAll(conds, &d) })
			return len(docs) >= limit
		})
	}
	if err != nil {
		return nil, err
	}
	if limit < 0 {
		limit = len(docs)
	}
	sortNewestFirst(docs)
	docs = docs[:min(limit, len(docs))]
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
	}
	texts, err := s.texts(ctx, s.docs, ids)
	if err != nil {
		return nil, err
	}
	// A document another replica deleted meanwhile is left out.
	out := docs[:0]
	for _, d := range docs {
		if text, ok := texts[d.ID]; ok {
			d.Text = text
			out = append(out, d)
		}
	}
	return out, nil
}

// sortNewestFirst sorts docs as List returns them: newest first, ties by
// id.
func sortNewestFirst(docs []core.Document) {
	slices.SortFunc(docs, func(a, b core.Document) int {
		return cmp.Or(b.Meta.Timestamp.Compare(a.Meta.Timestamp), cmp.Compare(b.ID, a.ID))
	})
}

// byID reads the records ids of the collection coll (documents or
// history) that are stored, with the columns of include: a page of ids a
// get, termFetches gets at once (a get by ids is answered from an index).
// each is called with every page read.
func (s *Store) byID(ctx context.Context, coll string, ids, include []string, each func(records)) error {
	pages := slices.Collect(slices.Chunk(ids, getPage))
	got := make([]records, len(pages))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(termFetches)
	for i, page := range pages {
		g.Go(func() (err error) {
			got[i], err = s.c.getOnce(gctx, coll, getRequest{IDs: page, Include: include})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, r := range got {
		each(r)
	}
	return nil
}

// texts returns the texts of the records ids of coll that are stored, by
// id (byID).
func (s *Store) texts(ctx context.Context, coll string, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	err := s.byID(ctx, coll, ids, []string{"documents"}, func(r records) {
		for i, id := range r.IDs {
			out[id] = r.Documents[i]
		}
	})
	return out, err
}

// vectorsOf returns the vectors of the documents ids that are stored, by
// id (byID).
func (s *Store) vectorsOf(ctx context.Context, ids []string) (map[string][]float32, error) {
	out := make(map[string][]float32, len(ids))
	err := s.byID(ctx, s.docs, ids, []string{"embeddings"}, func(r records) {
		for i, id := range r.IDs {
			out[id] = r.Embeddings[i]
		}
	})
	return out, err
}

// Drop deletes the store's collections and everything in them: for a
// throwaway store (`ada eval retrieval` gives each sample one).
func (s *Store) Drop(ctx context.Context) error {
	for _, name := range []string{docsName, historyName, metaName} {
		if err := s.c.call(ctx, http.MethodDelete, s.c.db+"/collections/"+name, nil, nil); err != nil {
			return err
		}
	}
	return nil
}
