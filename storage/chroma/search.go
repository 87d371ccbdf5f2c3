package chroma

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/vecindex"
)

// Search returns the q.K documents of q's filter nearest to q.Vector.
// Chroma's HNSW index finds them when its where clause holds the whole
// filter; a filter it cannot (a tag, a page cursor) is scanned exactly
// here, as SQLite scans such filters. Distances are computed again from
// the embeddings, as on SQLite, so that they do not depend on the backend.
func (s *Store) Search(ctx context.Context, q core.VectorQuery) ([]core.Hit, error) {
	if q.K <= 0 {
		return nil, nil
	}
	if len(q.Vector) != core.Dim {
		return nil, core.Errorf(core.KindInvalid, "query vector has %d dimensions, want %d", len(q.Vector), core.Dim)
	}
	docs, whole, err := s.inConversation(ctx, q.Filter)
	if err != nil {
		return nil, err
	}
	where, inexact := translate(q.Filter)
	switch {
	case whole: // ranked exactly below
	case postFiltered(inexact):
		if docs, err = s.find(ctx, q.Filter, []string{"documents", "embeddings"}); err != nil {
			return nil, err
		}
	default:
		// One conversation is read whole when it is small, whatever a
		// sample of the store's nearest says of its share (searchSmall);
		// other filters try the store's nearest first.
		first, second := s.searchWide, s.searchSmall
		if q.Filter.ConversationID != "" {
			first, second = second, first
		}
		found, ok, err := first(ctx, q, where)
		if err == nil && !ok {
			found, ok, err = second(ctx, q, where)
		}
		if err != nil {
			return nil, err
		}
		if docs = found; !ok {
			got, err := s.c.query(ctx, s.docs, q.Vector, q.K, where)
			if err != nil {
				return nil, err
			}
			if docs, err = documents(got); err != nil {
				return nil, err
			}
		}
	}
	hits := make([]core.Hit, len(docs))
	for i, d := range docs {
		hits[i] = core.Hit{Document: d, Distance: vecindex.CosineDistance(q.Vector, d.Embedding)}
	}
	slices.SortFunc(hits, func(a, b core.Hit) int { return cmp.Or(cmp.Compare(a.Distance, b.Distance), cmp.Compare(a.ID, b.ID)) })
	return hits[:min(q.K, len(hits))], nil
}

// maxProbe is how many neighbours searchWide asks for when the share of
// its filter is not known: Ada's HNSW search width (hnswSearchEF), so
// that the graph walk is the one a query of K makes anyway.
// maxWideProbe is the most it asks for when the share is known: a
// nearest-neighbour query costs in proportion to the metadata it returns
// (at 100k documents 25 ms for 400, 44 for 800, 83 for 1,600), and a
// query with the where clause instead 290–370 ms, whatever it selects
// (BenchmarkChromaChatRequests).
const (
	maxProbe     = hnswSearchEF
	maxWideProbe = 4 * hnswSearchEF
)

// wideProbe is how many of the store's nearest neighbours hold 2k of a
// filter selecting share of the store, or 0 when more than maxWideProbe.
func wideProbe(share float64, k int) int {
	if float64(2*k) > share*maxWideProbe {
		return 0
	}
	return min(maxWideProbe, max(2*k, int(math.Ceil(float64(2*k)/share))))
}

// wideMinDocs is the fewest documents a filter selects for searchWide to
// leave its where clause out: a clause selecting fewer costs Chroma
// about as much as the wide search (BenchmarkSearchWidth: 1,000 of
// 10,000), and its query finds them exactly.
const wideMinDocs = 2000

// searchWide is Search without the where clause, for a filter known (or
// not yet known) to select a large share of the store (filterShares),
// and at least wideMinDocs documents (s.wideMin):
// Chroma's nearest neighbours of the whole store are asked for (ids and
// metadata, enough of them for 2K of the filter's at its share), the
// filter is checked here, and the K nearest admitted are read by id. ok
// is false when the filter selects too small a share, or fewer than K of
// its documents were among the neighbours (of a second, wider probe
// too): Search then asks with the where clause. The K nearest of the filter among the store's nearest
// neighbours are the filter's nearest as HNSW finds them; the memory
// page's narrowing is left to core, as with the where clause.
func (s *Store) searchWide(ctx context.Context, q core.VectorQuery, where map[string]any) ([]core.Document, bool, error) {
	if where == nil {
		return nil, false, nil
	}
	now, scope := time.Now(), termScope(where)
	conds := q.Filter.SearchConds()
	s.measureShare(where, conds, scope)
	n := maxProbe // a share not known yet: the widest sample
	if share, known := s.shares.get(scope, now); known {
		total, err := s.size.get(now, func() (int, error) { return s.c.count(ctx, s.docs) })
		if n = wideProbe(share, q.K); err != nil || n == 0 || share*float64(total) < float64(s.wideMin) {
			return nil, false, err
		}
	}
	var ids []string
	// A second, wider probe when the first held fewer than K of the
	// filter's documents: as wide as its share says K need, or the widest
	// when that is wider. Near the query the filter's share may be far
	// smaller than in the store (many turns alike near a question asked
	// often), and 1,600 neighbours cost a quarter of the where clause's
	// query.
	for probe := 0; ; probe++ {
		got, err := s.c.nearest(ctx, s.docs, q.Vector, n)
		if err != nil || len(got.IDs) == 0 {
			return nil, false, err
		}
		ids = ids[:0]
		admitted := 0
		for i, id := range got.IDs {
			d, err := document(id, "", got.Metadatas[i], nil)
			if err != nil {
				return nil, false, err
			}
			if core.AdmitsAll(conds, &d) {
				if admitted++; len(ids) < q.K {
					ids = append(ids, id)
				}
			}
		}
		share := float64(admitted) / float64(len(got.IDs))
		s.shares.set(scope, share, now)
		if len(ids) == q.K || len(got.IDs) < n { // K found, or the store holds fewer than n: all were seen
			break
		}
		next := wideProbe(share, q.K)
		if next == 0 { // too few near the query to size it: the widest
			next = maxWideProbe
		}
		if probe > 0 || next <= n { // the filter's own query
			return nil, false, nil
		}
		n = next
	}
	docs, err := s.readAdmitted(ctx, ids, conds)
	return docs, err == nil, err
}

// readAdmitted reads the documents ids whole (text, metadata, vector) and
// keeps those conds admit: another replica may have moved one out of the
// filter, or deleted it, since its id was found.
func (s *Store) readAdmitted(ctx context.Context, ids []string, conds []core.Cond) ([]core.Document, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	got, err := s.c.get(ctx, s.docs, getRequest{IDs: ids, Include: []string{"documents", "metadatas", "embeddings"}})
	if err != nil {
		return nil, err
	}
	docs, err := documents(got)
	return slices.DeleteFunc(docs, func(d core.Document) bool { return !core.AdmitsAll(conds, &d) }), err
}

// shareDirections is how many random directions measureShare probes.
const shareDirections = 4

// measureShare measures, behind the search, the share of the store that
// where's filter (conds) selects among the nearest neighbours of
// shareDirections random directions (maxProbe each), unless it was
// measured within shareFor: a question's own neighbours may hold few of
// the filter's documents (many turns alike near a question asked often),
// and a share taken from them alone would send the searches after it to
// the where clause's query, for shareFor. The random directions' nearest
// favour the documents spread widest over the space (memories, more
// than many turns alike): an overrated share costs a search its second
// probe, an underrated one the where clause's query.
func (s *Store) measureShare(where map[string]any, conds []core.Cond, scope string) {
	if !s.shares.claim(scope, time.Now()) {
		return
	}
	started := s.behind.run(func(ctx context.Context) {
		defer s.shares.release(scope)
		admitted, seen := 0, 0
		for range shareDirections {
			got, err := s.c.nearest(ctx, s.docs, randomDirection(), maxProbe)
			if err != nil {
				return
			}
			for i, id := range got.IDs {
				d, err := document(id, "", got.Metadatas[i], nil)
				if err != nil {
					return
				}
				if seen++; core.AdmitsAll(conds, &d) {
					admitted++
				}
			}
		}
		if seen > 0 {
			s.shares.measured(scope, float64(admitted)/float64(seen), time.Now())
		}
	})
	if !started {
		s.shares.release(scope)
	}
}

// randomDirection is a unit vector of core.Dim numbers, uniformly
// distributed on the sphere.
func randomDirection() []float32 {
	v := make([]float32, core.Dim)
	var norm float64
	for i := range v {
		x := rand.NormFloat64()
		v[i], norm = float32(x), norm+x*x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(norm))
	}
	return v
}

// smallMax is the most documents searchSmall reads: with their
// vectors (768 numbers each as JSON, up to 8 kB a document) up to 4 MB in
// one get. At 100k documents a get of a conversation's 300 turns with the
// hash embedder's vectors (1.1 MB) took 30–70 ms, a query with its where
// clause 164 ms (BenchmarkChromaChatRequests).
const smallMax = 512

// searchSmall is Search of a filter that selects few documents: one
// conversation's (a chat's recall), or one known to select few
// (filterShares: the FAQ). Chroma 1.0 answers a query with a where clause
// (or with ids) by reading far more than the clause selects (at 100k
// documents, 130–290 ms for the FAQ's or one conversation's), and a get of
// the clause in proportion to what it selects (12–50 ms): so the
// filter's ids, at most smallMax, are read with the clause, then their
// vectors by id, and they are ranked here, exactly. A conversation's
// share is not asked: its own turns are the nearest neighbours of its
// recall's queries, so a sample overrates it. ok is false when the filter
// is not known small or holds more than smallMax documents (one get of
// ids spent): Search then asks with the where clause.
func (s *Store) searchSmall(ctx context.Context, q core.VectorQuery, where map[string]any) ([]core.Document, bool, error) {
	if where == nil {
		return nil, false, nil
	}
	if q.Filter.ConversationID == "" {
		now := time.Now()
		share, known := s.shares.get(termScope(where), now)
		if !known {
			return nil, false, nil
		}
		total, err := s.size.get(now, func() (int, error) { return s.c.count(ctx, s.docs) })
		if err != nil || share*float64(total) > 4*smallMax { // (a share from 400 neighbours is rough)
			return nil, false, err
		}
	}
	limit := smallMax + 1
	ids, err := s.c.getOnce(ctx, s.docs, getRequest{Where: where, Limit: &limit, Include: []string{}})
	if err != nil || len(ids.IDs) > smallMax {
		return nil, false, err
	}
	docs, err := s.readAdmitted(ctx, ids.IDs, q.Filter.SearchConds())
	return docs, err == nil, err
}

// words splits text as KeywordTerms does: lower-cased letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// stemOf strips a few English endings, so that "memory" and "memories"
// meet as SQLite's porter tokenizer makes them meet; the stem stays a
// prefix of the word, as the $contains search of candidates needs.
func stemOf(w string) string {
	for _, suf := range []string{"ies", "ing", "es", "ed", "ly", "s", "y"} {
		if st, ok := strings.CutSuffix(w, suf); ok && len([]rune(st)) >= 3 {
			return st
		}
	}
	return w
}

func capitalised(w string) string {
	r := []rune(w)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
