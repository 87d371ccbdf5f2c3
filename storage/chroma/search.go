package chroma

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/sync/errgroup"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
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
	var docs []core.Document
	if postFiltered(q.Filter) {
		var err error
		if docs, err = s.find(ctx, q.Filter, []string{"documents", "embeddings"}); err != nil {
			return nil, err
		}
	} else {
		got, err := s.c.query(ctx, s.docs, q.Vector, q.K, whereOf(q.Filter))
		if err != nil {
			return nil, err
		}
		if docs, err = documents(got); err != nil {
			return nil, err
		}
	}
	hits := make([]core.Hit, len(docs))
	for i, d := range docs {
		hits[i] = core.Hit{Document: d, Distance: vecindex.CosineDistance(q.Vector, d.Embedding)}
	}
	slices.SortFunc(hits, func(a, b core.Hit) int { return cmp.Or(cmp.Compare(a.Distance, b.Distance), cmp.Compare(a.ID, b.ID)) })
	return hits[:min(q.K, len(hits))], nil
}

// The keyword search. Chroma has no BM25 of its own: its where_document
// $contains finds the candidates of each term (a substring, in lower case
// or capitalised) within the query's filter (its where), and they are
// ranked here with BM25 as SQLite's FTS5 computes it (k1 1.2, b 0.75),
// over Ada's own tokens. A term matched by more than maxTermDocs documents
// of the filter is too common to weigh much and is left out, as SQLite
// leaves out common terms; a word common among turns but rare among
// memories is kept by a memory search. The terms' gets run termFetches at
// a time: each is a scan of the collection on the server.
const (
	bm25K1      = 1.2
	bm25B       = 0.75
	maxTermDocs = 500
	termFetches = 4
)

// KeywordSearch returns up to q.K documents within q's filter that match
// q.Text's words, best BM25 first.
func (s *Store) KeywordSearch(ctx context.Context, q core.KeywordQuery) ([]core.KeywordHit, error) {
	terms := storage.KeywordTerms(q.Text)
	if len(terms) == 0 || q.K <= 0 {
		return nil, nil
	}
	var total int
	stems := make([]string, len(terms))
	found := make([][]string, len(terms)) // the ids holding each term; nil: too common
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(termFetches)
	g.Go(func() (err error) {
		total, err = s.c.count(gctx, s.docs)
		return err
	})
	where := whereOf(q.Filter)
	for i, t := range terms {
		stems[i] = stemOf(t)
		if slices.Contains(stems[:i], stems[i]) {
			continue // fetched once, counted as often as the query says it
		}
		g.Go(func() error {
			limit := maxTermDocs + 1
			got, err := s.c.get(gctx, s.docs, getRequest{Where: where, Limit: &limit, Include: []string{},
				WhereDocument: map[string]any{"$or": []any{map[string]any{"$contains": stems[i]}, map[string]any{"$contains": capitalised(stems[i])}}}})
			if err == nil && len(got.IDs) <= maxTermDocs {
				found[i] = append([]string{}, got.IDs...)
			}
			return err
		})
	}
	if err := g.Wait(); err != nil || total == 0 {
		return nil, err
	}
	var ids, kept []string
	for i := range stems {
		if j := slices.Index(stems, stems[i]); j < i {
			found[i] = found[j]
		}
		if found[i] != nil {
			ids = append(ids, found[i]...)
			kept = append(kept, stems[i])
		}
	}
	stems = kept
	if len(ids) == 0 {
		return nil, nil
	}
	// The texts of the terms kept only, in one get: a common term's 501
	// matches cost more to send than to find.
	slices.Sort(ids)
	got, err := s.c.get(ctx, s.docs, getRequest{IDs: slices.Compact(ids), Include: []string{"documents", "metadatas"}})
	if err != nil {
		return nil, err
	}
	docs, err := documents(got)
	if err != nil {
		return nil, err
	}
	cands := make(map[string]core.Document, len(docs))
	for _, d := range docs {
		cands[d.ID] = d
	}
	// Document frequencies and lengths over the candidates' tokens (a
	// $contains match is a substring, not always a word). FTS5 counts N
	// (documents) and df (those holding the term) over the whole store;
	// here N is the whole store too, but df is counted among the filter's
	// documents only (the candidates), which is all a filtered get sees. It
	// is the store's df when the filter holds every document holding the
	// term, and otherwise smaller: every term's idf, log((N-df)/df) or
	// about log N - log df, rises by about the same amount, so the order
	// of the filter's documents, which is all the search returns, hardly
	// moves.
	tokens := make(map[string]map[string]int, len(cands))
	df := map[string]int{}
	var totalLen int
	for id, d := range cands {
		tf := map[string]int{}
		n := 0
		for _, w := range words(d.Text) {
			tf[stemOf(w)]++
			n++
		}
		tf[""] = n
		totalLen += n
		tokens[id] = tf
		for _, st := range stems {
			if tf[st] > 0 {
				df[st]++
			}
		}
	}
	avgLen := float64(totalLen) / float64(len(cands))
	var hits []core.KeywordHit
	conds := q.Filter.Conds()
	for id, d := range cands {
		if !core.AdmitsAll(conds, &d) {
			continue
		}
		tf := tokens[id]
		var score float64
		for _, st := range stems {
			f := float64(tf[st])
			if f == 0 {
				continue
			}
			idf := math.Max(math.Log((float64(total)-float64(df[st])+0.5)/(float64(df[st])+0.5)), 1e-6)
			score += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*float64(tf[""])/avgLen))
		}
		if score > 0 {
			hits = append(hits, core.KeywordHit{Document: d, BM25: score})
		}
	}
	slices.SortFunc(hits, func(a, b core.KeywordHit) int { return cmp.Or(cmp.Compare(b.BM25, a.BM25), cmp.Compare(a.ID, b.ID)) })
	hits = hits[:min(q.K, len(hits))]
	return hits, s.loadEmbeddings(ctx, hits)
}

// loadEmbeddings fills in the embeddings of the hits, as SQLite's keyword
// search returns them: only the K chosen, not every candidate, cross the
// wire (768 numbers each, as JSON).
func (s *Store) loadEmbeddings(ctx context.Context, hits []core.KeywordHit) error {
	if len(hits) == 0 {
		return nil
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	got, err := s.c.get(ctx, s.docs, getRequest{IDs: ids, Include: []string{"embeddings"}})
	if err != nil {
		return err
	}
	byID := make(map[string][]float32, len(got.IDs))
	for i, id := range got.IDs {
		byID[id] = got.Embeddings[i]
	}
	for i := range hits {
		hits[i].Embedding = byID[hits[i].ID]
	}
	return nil
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
