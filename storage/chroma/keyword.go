package chroma

import (
	"cmp"
	"context"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage"
)

// The keyword search. Chroma has no BM25 of its own: its where_document
// $contains finds the candidates of a term (a substring, in lower case,
// capitalised or in capitals: $contains is case-sensitive) within the
// query's filter (its where), and they are ranked here with BM25 as
// SQLite's FTS5 computes it (k1 1.2, b 0.75), over Ada's own tokens. A
// term matched by more than maxTermDocs documents of the filter is too
// common to weigh much and is left out, as SQLite leaves out common terms;
// a word common among turns but rare among memories is kept by a memory
// search.
//
// Each term is first counted (a get of its ids, at most maxTermDocs+1,
// termFetches at a time) within the search's where clause, and its
// verdict remembered per where clause (termCache): a common term for an
// hour, a rare one with its documents' ids, which this process's writes
// keep up to date and which are counted again, behind the search, when
// they are a minute old (refreshStale). Then the candidates' texts are
// read by id and ranked here, and the metadata and embeddings of the K
// chosen read by id (Chroma's count, BM25's N, is reused for a minute,
// storeSize). A search whose terms are all known thus waits for no
// request that Chroma answers by reading the store: on Chroma 1.0 a
// where_document clause reads every text of the collection, and a where
// clause costs in proportion to the records it selects (BenchmarkSearchesOfAChat
// at 100k: a get by ids 1.5 ms, a where selecting no record 12 ms, one
// selecting them all 175 ms, a $contains of one word 96 ms). One with new
// terms waits for one such get per new term.
const (
	bm25K1      = 1.2
	bm25B       = 0.75
	maxTermDocs = 500
	termFetches = 4
)

// KeywordSearch returns up to q.K documents within q's filter that match
// q.Text's words, best BM25 first.
func (s *Store) KeywordSearch(ctx context.Context, q core.KeywordQuery) ([]core.KeywordHit, error) {
	var stems []string // each term's stem, as often as the query says it
	for _, t := range storage.KeywordTerms(q.Text) {
		stems = append(stems, stemOf(t))
	}
	if len(stems) == 0 || q.K <= 0 {
		return nil, nil
	}
	var total int
	var cands []core.Document
	var kept []string
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		total, err = s.size.get(time.Now(), func() (int, error) { return s.c.count(gctx, s.docs) })
		return err
	})
	where := whereOf(q.Filter)
	if conds, ok := whereConds(q.Filter); ok && where != nil {
		s.terms.describe(termScope(where), conds)
	}
	wide := false
	if share, known := s.shares.get(termScope(where), time.Now()); where != nil && known && share >= wideKeywordShare {
		// Most of the store: the clause would cost Chroma a read of
		// every document it selects per request (filterShares). The
		// candidates of the whole store are ranked instead, and
		// completeHits keeps the filter's.
		where, wide = nil, true
	}
	docs, whole, err := s.inConversation(ctx, q.Filter)
	if err != nil || whole {
		if err := cmp.Or(err, g.Wait()); err != nil {
			return nil, err
		}
		return s.keywordInConversation(docs, stems, total, q.K), nil
	}
	g.Go(func() (err error) {
		if q.Filter.ConversationID != "" && where != nil {
			cands, kept, err = s.conversationCandidates(gctx, where, stems)
		} else {
			cands, kept, err = s.keywordCandidates(gctx, where, stems)
		}
		return err
	})
	if err := g.Wait(); err != nil || len(cands) == 0 {
		return nil, err
	}
	total = max(total, len(cands)) // a count a minute old may be short
	return s.completeHits(ctx, rankBM25(cands, kept, total), q.Filter, q.K, wide)
}

// completeHits reads the metadata and embeddings of the best-ranked
// hits (K at a time, until K of them are within f) and returns the first
// K within f: only those chosen cross the wire with their metadata and
// their 768 numbers each (as JSON). When the search left its where clause
// out (wide: most of the store, wideKeywordShare) it ranked documents
// outside f too, turns that hold the words of a question asked often
// above the memories: then the metadata alone is read, completeBatch at a
// time, and the embeddings of the K chosen after.
func (s *Store) completeHits(ctx context.Context, ranked []core.KeywordHit, f core.Filter, k int, wide bool) ([]core.KeywordHit, error) {
	var out []core.KeywordHit
	conds := f.Conds()
	batch, include := k, []string{"metadatas", "embeddings"}
	if wide {
		batch, include = max(k, completeBatch), []string{"metadatas"}
	}
	for len(ranked) > 0 && len(out) < k {
		next := ranked[:min(batch, len(ranked))]
		ranked = ranked[len(next):]
		ids := make([]string, len(next))
		for i, h := range next {
			ids[i] = h.ID
		}
		got, err := s.c.get(ctx, s.docs, getRequest{IDs: ids, Include: include})
		if err != nil {
			return nil, err
		}
		docs, err := documents(got)
		if err != nil {
			return nil, err
		}
		byID := make(map[string]core.Document, len(docs))
		for _, d := range docs {
			byID[d.ID] = d
		}
		for _, h := range next {
			d, ok := byID[h.ID] // absent: another replica deleted it meanwhile
			if !ok || !core.AdmitsAll(conds, &d) || len(out) == k {
				continue
			}
			d.Text = h.Text
			out = append(out, core.KeywordHit{Document: d, BM25: h.BM25})
		}
	}
	if !wide || len(out) == 0 {
		return out, nil
	}
	ids := make([]string, len(out))
	for i, h := range out {
		ids[i] = h.ID
	}
	vecs, err := s.vectorsOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	// One deleted between the two reads is left out, as a read after the
	// deletion would.
	for i := range out {
		out[i].Embedding = vecs[out[i].ID]
	}
	return slices.DeleteFunc(out, func(h core.KeywordHit) bool { return h.Embedding == nil }), nil
}

// completeBatch is how many ranked hits completeHits checks with one read
// of their metadata, at least.
const completeBatch = 200

// wideKeywordShare is the share of the store (filterShares) from which a
// keyword search leaves its filter's where clause out: its terms are then
// counted, and their documents' frequencies taken, in the whole store,
// which differs from the filter's by a tenth at most.
const wideKeywordShare = 0.9

// keywordCandidates returns the documents of where holding any of the
// terms that are not too common (by $contains), and those terms, each as
// often as stems holds it. A term not known lately is counted (the ids
// of at most maxTermDocs+1 documents of where holding it); a rare term
// whose documents are known costs no request: those known longer ago
// than termIDsFor are used as they are and counted again behind the
// search (refreshStale), so that no chat waits for a $contains, which
// Chroma answers by reading every text of the store. The candidates'
// texts are then read by id, which Chroma answers from an index.
func (s *Store) keywordCandidates(ctx context.Context, where map[string]any, stems []string) ([]core.Document, []string, error) {
	now, scope := time.Now(), termScope(where)
	unique := slices.Compact(slices.Sorted(slices.Values(stems)))
	idsOf := map[string][]string{}
	var unknown, stale []string
	for _, st := range unique {
		switch common, ids, fresh, known := s.terms.verdict(scope, st, now); {
		case !known:
			unknown = append(unknown, st)
		case common:
		default:
			if idsOf[st] = ids; !fresh {
				stale = append(stale, st)
			}
		}
	}
	s.refreshStale(where, scope, stale)
	counted, err := s.countTerms(ctx, where, scope, unknown, now)
	if err != nil {
		return nil, nil, err
	}
	maps.Copy(idsOf, counted)
	kept := slices.DeleteFunc(slices.Clone(stems), func(st string) bool { _, ok := idsOf[st]; return !ok })
	var ids []string
	for _, st := range slices.Sorted(maps.Keys(idsOf)) {
		ids = append(ids, idsOf[st]...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	texts, err := s.texts(ctx, s.docs, ids)
	if err != nil {
		return nil, nil, err
	}
	var cands []core.Document
	for _, id := range ids { // a document deleted since its term was counted is absent
		if text, ok := texts[id]; ok {
			cands = append(cands, core.Document{ID: id, Text: text})
		}
	}
	return cands, kept, nil
}

// refreshStale counts stems (rare terms whose documents were known
// longer ago than termIDsFor) again within where, behind the search that
// used their documents as known: another replica's writes of the last
// minute are found by the searches after it. The final read by id keeps
// what was deleted or moved out of the filter meanwhile out of every
// search (completeHits). A term being counted already is not counted
// twice; a count that fails leaves the documents stale, to be counted
// at the next search.
func (s *Store) refreshStale(where map[string]any, scope string, stems []string) {
	stems = s.terms.claim(scope, stems)
	if len(stems) == 0 {
		return
	}
	started := s.behind.run(func(ctx context.Context) {
		defer s.terms.release(scope, stems)
		_, _ = s.countTerms(ctx, where, scope, stems, time.Now())
	})
	if !started {
		s.terms.release(scope, stems)
	}
}

// conversationCandidates is keywordCandidates within one conversation
// (a chat's recall, a new conversation's first): its documents are read
// in one get and their words matched here, where asking Chroma for each
// word would cost a read of the store per word (and a new conversation's
// words are never known yet). A word in more than maxTermDocs of its
// documents is too common, as in keywordCandidates. A conversation of
// more than maxConversationTexts documents (an imported one) is searched
// as any filter is, rather than read whole at every search.
func (s *Store) conversationCandidates(ctx context.Context, where map[string]any, stems []string) ([]core.Document, []string, error) {
	limit := s.kw.conversationTexts + 1
	got, err := s.c.get(ctx, s.docs, getRequest{Where: where, Limit: &limit, Include: []string{"documents"}})
	if err != nil {
		return nil, nil, err
	}
	if len(got.IDs) > s.kw.conversationTexts {
		return s.keywordCandidates(ctx, where, stems)
	}
	docs := idTexts(got)
	return docs, s.keptIn(docs, stems), nil
}

// keptIn is stems without those that no document of docs holds and those
// too common among them (in more than maxTermDocs).
func (s *Store) keptIn(docs []core.Document, stems []string) []string {
	df := map[string]int{}
	for _, st := range slices.Compact(slices.Sorted(slices.Values(stems))) {
		for _, d := range docs {
			if hasForm(d.Text, st) {
				df[st]++
			}
		}
	}
	return slices.DeleteFunc(slices.Clone(stems), func(st string) bool { return df[st] == 0 || df[st] > s.kw.termDocs })
}

// maxConversationTexts bounds the texts conversationCandidates reads.
const maxConversationTexts = 2000

// keywordLimits are maxTermDocs and maxConversationTexts (tests lower
// them).
type keywordLimits struct{ termDocs, conversationTexts int }

// countTerms asks Chroma, term by term (termFetches at a time, ids only),
// for the documents of where holding each of stems (at most
// maxTermDocs+1), records under scope (termScope(where)) whether each is
// too common and, when not, its documents, and returns the latter.
func (s *Store) countTerms(ctx context.Context, where map[string]any, scope string, stems []string, now time.Time) (map[string][]string, error) {
	if len(stems) == 0 {
		return nil, nil
	}
	ids := make([][]string, len(stems))
	since := s.terms.writeCount()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(termFetches)
	for i, st := range stems {
		g.Go(func() error {
			limit := s.kw.termDocs + 1
			got, err := s.c.get(gctx, s.docs, getRequest{Where: where, Limit: &limit, Include: []string{}, WhereDocument: containsAny([]string{st})})
			ids[i] = got.IDs
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for i, st := range stems {
		switch {
		case len(ids[i]) > s.kw.termDocs:
			ids[i] = nil // too common
		case ids[i] == nil:
			ids[i] = []string{} // in no document
		}
		if ids[i] != nil {
			out[st] = ids[i]
		}
	}
	s.terms.set(scope, stems, ids, since, now)
	return out, nil
}

// containsAny is the where_document clause of the texts holding any of
// stems, in any of their forms.
func containsAny(stems []string) map[string]any {
	var clauses []any
	for _, st := range stems {
		for _, form := range forms(st) {
			clauses = append(clauses, map[string]any{"$contains": form})
		}
	}
	if len(clauses) == 1 {
		return clauses[0].(map[string]any)
	}
	return map[string]any{"$or": clauses}
}

// hasForm reports whether text holds st in a form $contains is asked for.
func hasForm(text, st string) bool {
	return slices.ContainsFunc(forms(st), func(form string) bool { return strings.Contains(text, form) })
}

// forms are the cases $contains (case-sensitive) is asked for a stem:
// lower case, capitalised and in capitals; a word in mixed case
// ("ZePPelin") is not found.
func forms(st string) []string {
	return slices.Compact(slices.Sorted(slices.Values([]string{st, capitalised(st), strings.ToUpper(st)})))
}

// rankBM25 scores the candidates of a filter that hold any of stems. FTS5
// counts N (documents) and df (those holding the term) over the whole
// store; here N is the whole store too (total), but df is counted among
// the filter's documents only (the candidates), which is all a filtered
// get sees. It is the store's df when the filter holds every document
// holding the term, and otherwise smaller: every term's idf, log((N-df)/df)
// or about log N - log df, rises by about the same amount, so the order of
// the filter's documents, which is all the search returns, hardly moves.
// Lengths and frequencies are over Ada's tokens (a $contains match is a
// substring, not always a word). The candidates have no metadata yet: f's
// conditions beyond the where clause are checked after (completeHits).
func rankBM25(cands []core.Document, stems []string, total int) []core.KeywordHit {
	stems = informative(cands, stems, total)
	// The candidates of the terms kept only: a document matched by a
	// common term alone does not count in the average length.
	cands = slices.DeleteFunc(cands, func(d core.Document) bool {
		return !slices.ContainsFunc(stems, func(st string) bool { return hasForm(d.Text, st) })
	})
	if len(cands) == 0 {
		return nil
	}
	unique := slices.Compact(slices.Sorted(slices.Values(stems)))
	tokens := make([]map[string]int, len(cands))
	df := map[string]int{}
	var totalLen int
	for i, d := range cands {
		tf := map[string]int{}
		n := 0
		for _, w := range words(d.Text) {
			tf[stemOf(w)]++
			n++
		}
		tf[""] = n
		totalLen += n
		tokens[i] = tf
		for _, st := range unique {
			if tf[st] > 0 {
				df[st]++
			}
		}
	}
	avgLen := float64(totalLen) / float64(len(cands))
	var hits []core.KeywordHit
	for i, d := range cands {
		tf := tokens[i]
		var score float64
		for _, st := range stems {
			tfs := float64(tf[st])
			if tfs == 0 {
				continue
			}
			idf := math.Max(math.Log((float64(total)-float64(df[st])+0.5)/(float64(df[st])+0.5)), 1e-6)
			score += idf * tfs * (bm25K1 + 1) / (tfs + bm25K1*(1-bm25B+bm25B*float64(tf[""])/avgLen))
		}
		if score > 0 {
			hits = append(hits, core.KeywordHit{Document: d, BM25: score})
		}
	}
	slices.SortFunc(hits, func(a, b core.KeywordHit) int { return cmp.Or(cmp.Compare(b.BM25, a.BM25), cmp.Compare(a.ID, b.ID)) })
	return hits
}

// informative leaves out of stems those SQLite leaves out of its keyword
// search (storage.CommonLimit: in a twentieth of a store of total
// documents, and at least 50), counted as words among cands (which hold
// every document of the search's where clause holding them), so that
// both backends rank by the same terms.
func informative(cands []core.Document, stems []string, total int) []string {
	limit := storage.CommonLimit(int64(total))
	if int64(total) <= limit {
		return stems
	}
	df := make(map[string]int64, len(stems))
	for _, st := range stems {
		df[st] = 0
	}
	for _, d := range cands {
		seen := map[string]bool{}
		for _, w := range words(d.Text) {
			if st := stemOf(w); !seen[st] {
				if _, asked := df[st]; asked {
					seen[st] = true
					df[st]++
				}
			}
		}
	}
	return slices.DeleteFunc(slices.Clone(stems), func(st string) bool { return df[st] >= limit })
}

// idTexts are the documents of r with their ids and texts only.
func idTexts(r records) []core.Document {
	out := make([]core.Document, len(r.IDs))
	for i, id := range r.IDs {
		out[i] = core.Document{ID: id, Text: r.Documents[i]}
	}
	return out
}
