package chroma

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"

	"golang.org/x/sync/errgroup"

	"github.com/ada-chat/ada/core"
)

// The keyword index. Chroma 1.0 answers a get by ids from an index, but
// evaluates any where or where_document clause by reading every record of
// the collection with all its metadata (a GROUP BY … HAVING over its
// SQLite tables): the cost of a clause grows with the collection, whatever
// it selects. A keyword search on the documents' texts ($contains) is
// thus a scan of the store, and so would be a metadata get over one
// collection of postings (measured: 24 ms for a term of 11 postings among
// 110,000, growing with the postings).
//
// So the postings are spread over postingShards collections by their term
// (postingShard): a term's get scans one shard, a 32nd of the postings.
// A posting is one record per (document, stem of its words) with the stem,
// its frequency in the document (tf), the document's length in tokens
// (len), the document's id (doc), and the scalar fields its filter reads
// (chromaMeta's, but the JSON), so that a keyword search's where clause is
// the documents' own (whereOf) and document frequencies are counted
// within the filter, as the $contains search counted them. Its embedding
// is unitVector (the shard is never searched by similarity).
//
// A posting's id derives from its document, stem and fields: a write
// adds the postings of what it writes, then deletes those of the version
// it replaced that differ (a reader sees the old and the new for a moment,
// never neither), and no posting is read and rewritten, so replicas do
// not conflict. A deletion deletes the documents' postings before and
// after the documents (postingsOf reads their texts first): a posting of
// a forgotten word outlives neither its document nor a backfill that read
// the document before it went (backfill.go).
const (
	postingShards = 32
	postingsName  = "conversations_postings_"
)

// postingShard is the shard holding the postings of stem.
func postingShard(stem string) int {
	h := fnv.New32a()
	h.Write([]byte(stem))
	return int(h.Sum32() % postingShards)
}

func shardName(i int) string { return fmt.Sprintf("%s%02d", postingsName, i) }

// postingRecords are the postings of docs, by shard.
func postingRecords(docs []core.Document) (map[int]records, error) {
	out := map[int]records{}
	for _, d := range docs {
		m, err := chromaMeta(d)
		if err != nil {
			return nil, err
		}
		delete(m, metaKey)
		delete(m, "has_sources")
		fields, _ := json.Marshal(m) // sorted keys: the same fields, the same id
		tf := map[string]int{}
		n := 0
		for _, w := range words(d.Text) {
			tf[stemOf(w)]++
			n++
		}
		for _, st := range slices.Sorted(maps.Keys(tf)) {
			sum := sha1.Sum([]byte(d.ID + "\x00" + st + "\x00" + string(fields)))
			pm := maps.Clone(m)
			pm["doc"], pm["term"], pm["tf"], pm["len"] = d.ID, st, tf[st], n
			sh := postingShard(st)
			r := out[sh]
			r.IDs, r.Embeddings = append(r.IDs, "post-"+hex.EncodeToString(sum[:12])), append(r.Embeddings, unitVector)
			r.Metadatas = append(r.Metadatas, pm)
			out[sh] = r
		}
	}
	return out, nil
}

// shardWrites is how many requests to the shards a write sends at once.
const shardWrites = 4

// eachShard calls fn for each shard of by, shardWrites at a time.
func eachShard[T any](ctx context.Context, by map[int]T, fn func(ctx context.Context, shard int, v T) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(shardWrites)
	for sh, v := range by {
		g.Go(func() error { return fn(gctx, sh, v) })
	}
	return g.Wait()
}

// addPostings writes the postings of docs.
func (s *Store) addPostings(ctx context.Context, docs []core.Document) error {
	by, err := postingRecords(docs)
	if err != nil {
		return err
	}
	return eachShard(ctx, by, func(ctx context.Context, sh int, r records) error {
		for start := 0; start < len(r.IDs); start += getPage {
			end := min(start+getPage, len(r.IDs))
			if err := s.c.upsert(ctx, s.shards[sh], records{IDs: r.IDs[start:end], Embeddings: r.Embeddings[start:end], Metadatas: r.Metadatas[start:end]}); err != nil {
				return err
			}
		}
		return nil
	})
}

// deletePostings deletes the postings of docs, but those keep holds (by
// id: the postings just written of the documents' new versions).
func (s *Store) deletePostings(ctx context.Context, docs []core.Document, keep map[int]records) error {
	by, err := postingRecords(docs)
	if err != nil {
		return err
	}
	return eachShard(ctx, by, func(ctx context.Context, sh int, r records) error {
		ids := slices.DeleteFunc(r.IDs, func(id string) bool { return slices.Contains(keep[sh].IDs, id) })
		return s.c.deleteIDs(ctx, s.shards[sh], ids)
	})
}

// stored returns the stored versions of the documents ids (texts and
// metadata): what their postings were made of.
func (s *Store) stored(ctx context.Context, ids []string) ([]core.Document, error) {
	var out []core.Document
	for chunk := range slices.Chunk(ids, getPage) {
		got, err := s.c.get(ctx, s.docs, getRequest{IDs: chunk, Include: []string{"documents", "metadatas"}})
		if err != nil {
			return nil, err
		}
		docs, err := documents(got)
		if err != nil {
			return nil, err
		}
		out = append(out, docs...)
	}
	return out, nil
}

// writeDocs writes docs (encoded as r) and their postings, then deletes
// the postings of the versions they replaced that the new ones do not
// repeat.
func (s *Store) writeDocs(ctx context.Context, docs []core.Document, r records) error {
	if len(docs) == 0 {
		return nil
	}
	old, err := s.stored(ctx, r.IDs)
	if err != nil {
		return err
	}
	if err := s.upsertDocs(ctx, r); err != nil {
		return err
	}
	if err := s.addPostings(ctx, docs); err != nil {
		return err
	}
	if len(old) == 0 {
		return nil
	}
	fresh, err := postingRecords(docs)
	if err != nil {
		return err
	}
	return s.deletePostings(ctx, old, fresh)
}

// removeDocs deletes the documents ids and their postings: the postings
// first (a deletion cut short leaves no posting of a word that went),
// then the documents, then their postings again (those a backfill wrote
// meanwhile from a version it read before: it checks, after writing,
// that its documents are still stored).
func (s *Store) removeDocs(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	docs, err := s.stored(ctx, ids)
	if err != nil {
		return err
	}
	if err := s.deletePostings(ctx, docs, nil); err != nil {
		return err
	}
	if err := s.c.deleteIDs(ctx, s.docs, ids); err != nil {
		return err
	}
	return s.deletePostings(ctx, docs, nil)
}

// posting is one posting as a keyword search reads it.
type posting struct {
	doc     string
	tf, len int
}

// postingsOf returns the postings of stem within where (at most
// s.kw.termDocs+1: more say the term is too common).
func (s *Store) postingsOf(ctx context.Context, stem string, where map[string]any) ([]posting, error) {
	w := map[string]any{"term": stem}
	if where != nil {
		w = map[string]any{"$and": []any{w, where}}
	}
	limit := s.kw.termDocs + 1
	got, err := s.c.getOnce(ctx, s.shards[postingShard(stem)], getRequest{Where: w, Limit: &limit, Include: []string{"metadatas"}})
	if err != nil {
		return nil, err
	}
	out := make([]posting, 0, len(got.IDs))
	for _, m := range got.Metadatas {
		doc, _ := m["doc"].(string)
		out = append(out, posting{doc: doc, tf: int(number(m["tf"])), len: int(number(m["len"]))})
	}
	return out, nil
}
