package core

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultRelevanceFloor is RAG_RELEVANCE_FLOOR's default: with the hash
// embedder, texts that share no word score below it (make bench and
// core's tests measure this).
const DefaultRelevanceFloor = 0.15

// retrieval is what one chat turn retrieved, before it is rendered.
type retrieval struct {
	persona   []PersonaSection
	used      UsedContext
	turns     []Document // the recent window, oldest first
	memories  []Memory
	faqs      []Document
	summaries []Document    // the newest summaries, oldest first
	recalled  []recalledDoc // earlier turns and summaries, by time
	nextTurn  int           // turn_index of the new user turn
	// promptVec is the prompt's embedding, if retrieval needed it; saving
	// the user turn reuses it.
	promptVec []float32
	// budgetDropped counts the items the context budget left out.
	budgetDropped int
}

// effectiveK resolves a request's *_k against its setting: nil means the
// setting, 0 turns the section off.
func effectiveK(req *int, setting int) int {
	if req == nil {
		return setting
	}
	return *req
}

// relevantQuery is one search by relevance to a text.
type relevantQuery struct {
	Filter
	K int
	// Floor drops results whose relevance is below it.
	Floor float64
}

// relevantDoc is a document and how relevant it is to the query.
type relevantDoc struct {
	Document
	// Relevance, 0 to 1, ranks the results and is what the floor applies to.
	Relevance  float64
	Similarity float64
	Explain    Explanation
}

// Explanation says why a search result ranks where it does.
type Explanation struct {
	// VectorRank is the rank (from 1) among the vector candidates; null when
	// the vectors did not propose it.
	VectorRank *int    `json:"vector_rank"`
	Similarity float64 `json:"similarity"`
	// KeywordRank is the rank (from 1) by BM25; null without a keyword match.
	KeywordRank *int    `json:"keyword_rank"`
	BM25        float64 `json:"bm25"`
	// KeywordRelevance is BM25 mapped to 0..1 relative to the query's best
	// match: bm25 / max(best bm25, keywordScale).
	KeywordRelevance float64 `json:"keyword_relevance"`
	// Relevance fuses both: 1 − (1 − similarity)(1 − keyword_relevance).
	Relevance float64 `json:"relevance"`
	// The terms of a memory's score; they add up to it.
	RelevanceTerm  *float64 `json:"relevance_term,omitempty"`
	ImportanceTerm *float64 `json:"importance_term,omitempty"`
	RecencyTerm    *float64 `json:"recency_term,omitempty"`
	// SessionBonus is a recalled turn's share of the best relevance in its
	// session (see rankRecall); its score is relevance plus this.
	SessionBonus *float64 `json:"session_bonus,omitempty"`
}

// keywordScale is the BM25 score from which a match counts as fully
// relevant. The best match of a query counts as fully relevant when it is
// at least this strong (one rare word of the query in a short text scores
// about this), so a rare name ranks high however few of the query's common
// words it shares; when the best is weaker (only common words matched),
// everything scales down and the relevance floor can keep it out.
const keywordScale = 5.0

// minCandidates is how many candidates each of the two searches proposes
// at least, so that fusion has both lists to work with.
const minCandidates = 20

// searchRelevant is the one retrieval function: the chat's FAQ, memory and
// recall lookups, the memory search API and `ada eval retrieval` all rank
// through it. In hybrid mode the vector search and the keyword (BM25)
// search each propose candidates; every candidate's similarity is computed
// exactly, its BM25 mapped to 0..1, and the two fused as independent
// evidence: relevance = 1 − (1 − similarity)(1 − keyword relevance). A text
// that shares a rare word with the query ranks high even when the vectors
// miss it, and one that matches both ranks above either. vec is text's
// embedding.
func (s *Service) searchRelevant(ctx context.Context, text string, vec []float32, q relevantQuery) ([]relevantDoc, error) {
	n := max(q.K, minCandidates)
	byID := map[string]*relevantDoc{}
	var order []*relevantDoc
	var (
		vecHits []Hit
		kwHits  []KeywordHit
		vecErr  error
		kwErr   error
		wg      sync.WaitGroup
	)
	vectorSearch := func() {
		vecHits, vecErr = s.store.Search(ctx, VectorQuery{Filter: q.Filter, Vector: vec, K: n})
	}
	switch s.opts.SearchMode {
	case SearchVector:
		vectorSearch()
	case SearchKeyword:
	default:
		// The two searches are independent: the vector search runs while
		// the keyword search does, so a hybrid search takes the longer of
		// the two, not their sum (make bench, stage shares). A panic in it
		// becomes an error here, as it would have been in the caller.
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					vecErr = Errorf(KindInternal, "vector search: panic: %v", r)
				}
			}()
			vectorSearch()
		})
	}
	if s.opts.SearchMode != SearchVector {
		kwHits, kwErr = s.store.KeywordSearch(ctx, KeywordQuery{Filter: q.Filter, Text: text, K: n})
	}
	wg.Wait()
	if err := cmp.Or(vecErr, kwErr); err != nil {
		return nil, err
	}
	for i, h := range vecHits {
		rank := i + 1
		d := &relevantDoc{Document: h.Document, Similarity: round4(max(0, min(1, 1-h.Distance)))}
		d.Explain.VectorRank = &rank
		byID[h.ID] = d
		order = append(order, d)
	}
	for i, h := range kwHits {
		rank := i + 1
		d, ok := byID[h.ID]
		if !ok {
			d = &relevantDoc{Document: h.Document, Similarity: round4(max(0, min(1, cosineSimilarity(vec, h.Embedding))))}
			byID[h.ID] = d
			order = append(order, d)
		}
		d.Explain.KeywordRank = &rank
		d.Explain.BM25 = round4(h.BM25)
	}
	best := keywordScale
	for _, d := range order {
		best = max(best, d.Explain.BM25)
	}
	out := make([]relevantDoc, 0, len(order))
	for _, d := range order {
		kw := d.Explain.BM25 / best
		switch s.opts.SearchMode {
		case SearchVector:
			d.Relevance = d.Similarity
		case SearchKeyword:
			d.Relevance = round4(kw)
		default:
			d.Relevance = round4(1 - (1-d.Similarity)*(1-kw))
		}
		d.Explain.Similarity, d.Explain.KeywordRelevance, d.Explain.Relevance = d.Similarity, round4(kw), d.Relevance
		if d.Relevance <= 0 || d.Relevance < q.Floor {
			continue // shares nothing with the query, or too little
		}
		out = append(out, *d)
	}
	slices.SortStableFunc(out, func(a, b relevantDoc) int { return cmp.Compare(b.Relevance, a.Relevance) })
	return out[:min(len(out), q.K)], nil
}

// cosineSimilarity of two vectors; 0 when either is zero.
func cosineSimilarity(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		x, y := float64(a[i]), float64(b[i])
		dot, na, nb = dot+x*y, na+x*x, nb+y*y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// retrieve gathers the context of req as DECISIONS.md says: the recent
// window of turns and summaries, what is recalled from earlier in the
// conversation, FAQs and memories, all above the relevance floor.
func (s *Service) retrieve(ctx context.Context, req ChatRequest) (retrieval, error) {
	start := time.Now()
	r, err := s.retrieveAll(ctx, req)
	if err == nil {
		s.fitBudget(req, &r)
	}
	r.fillUsed()
	// What an operator debugging retrieval needs, without any text.
	s.logger(ctx).Debug("retrieved", "conversation_id", req.ConversationID,
		"turns", len(r.turns), "summaries", len(r.summaries), "recalled", len(r.recalled),
		"memories", len(r.memories), "faqs", len(r.faqs), "over_budget", r.budgetDropped, "mode", s.opts.SearchMode,
		"floor", s.opts.RelevanceFloor, "ms", float64(time.Since(start).Microseconds())/1000, "error", err)
	return r, err
}

func (s *Service) retrieveAll(ctx context.Context, req ChatRequest) (retrieval, error) {
	var r retrieval
	r.used = emptyUsedContext(req.Entity)
	if sections, version, mod, ok := s.personaSnapshot(); ok && s.opts.EnablePersona {
		r.persona = sections
		r.used.Persona.Included = true
		r.used.Persona.Version = &version
		if !mod.IsZero() {
			ts := isoTime(mod)
			r.used.Persona.Timestamp = &ts
		}
	}
	if !s.opts.RAGEnabled {
		return r, nil
	}
	if req.ConversationID != "" {
		if err := s.recentWindow(ctx, req, &r); err != nil {
			return r, err
		}
	}
	faqK := effectiveK(req.FAQK, s.opts.FAQTopK)
	if !s.opts.EnableFAQ {
		faqK = 0
	}
	memK := effectiveK(req.MemoryK, s.opts.MemoryTopK)
	if !s.opts.EnableMemory {
		memK = 0
	}
	recallK := effectiveK(req.RecallK, s.opts.RecallTopK)
	if !s.hasOlderContext(r) {
		recallK = 0
	}
	if faqK == 0 && memK == 0 && recallK == 0 {
		return r, nil
	}
	vec, err := s.embedOne(ctx, req.Prompt)
	if err != nil {
		return r, err
	}
	r.promptVec = vec
	if faqK > 0 {
		docs, err := s.searchRelevant(ctx, req.Prompt, vec, relevantQuery{Filter: Filter{Type: DocFAQ}, K: faqK, Floor: s.opts.RelevanceFloor})
		if err != nil {
			return r, err
		}
		for _, d := range docs {
			sim, ex := d.Similarity, d.Explain
			r.faqs = append(r.faqs, d.Document)
			r.used.FAQs = append(r.used.FAQs, ContextItem{ID: d.ID, Text: d.Text, Topic: d.Meta.Topic, Similarity: &sim, Explain: &ex})
		}
	}
	if memK > 0 {
		scopes, err := searchScopes("", req.Entity)
		if err != nil {
			return r, err
		}
		mems, err := s.rankMemories(ctx, req.Prompt, vec, Filter{Type: DocMemory, Scopes: scopes}, memK, s.opts.RelevanceFloor)
		if err != nil {
			return r, err
		}
		r.memories = mems
		for _, m := range mems {
			r.used.Memories = append(r.used.Memories, ContextItem{ID: m.ID, Text: m.Text, Importance: m.Meta.Importance,
				Scope: m.Meta.Scope, Score: m.Score, Similarity: m.Similarity, Timestamp: isoTime(m.Meta.Timestamp), Explain: m.Explain})
		}
	}
	if recallK > 0 {
		if err := s.recall(ctx, req, vec, recallK, &r); err != nil {
			return r, err
		}
	}
	return r, nil
}

// recentWindow reads the newest turns_k turns and the newest summaries. One
// query gives both the turns and, from the newest, the next turn index.
func (s *Service) recentWindow(ctx context.Context, req ChatRequest, r *retrieval) error {
	k := effectiveK(req.TurnsK, s.opts.TurnTopK)
	if !s.opts.EnableTurn {
		k = 0
	}
	docs, err := s.store.List(ctx, Filter{Type: DocTurn, ConversationID: req.ConversationID}, max(k, 1))
	if err != nil {
		return err
	}
	if len(docs) > 0 && docs[0].Meta.TurnIndex != nil {
		r.nextTurn = *docs[0].Meta.TurnIndex + 1
	}
	r.turns = reversed(docs[:min(k, len(docs))])
	if s.opts.EnableSummary && s.opts.SummaryTopK > 0 {
		sums, err := s.store.List(ctx, Filter{Type: DocSummary, ConversationID: req.ConversationID}, s.opts.SummaryTopK)
		if err != nil {
			return err
		}
		r.summaries = reversed(sums)
	}
	return nil
}

// firstRecentTurn is the index of the oldest turn in the recent window (the
// next turn's when the window is empty). It is read from the turn, not
// counted back from the next index: deleted turns leave gaps.
func (r *retrieval) firstRecentTurn() int {
	if len(r.turns) > 0 && r.turns[0].Meta.TurnIndex != nil {
		return *r.turns[0].Meta.TurnIndex
	}
	return r.nextTurn
}

// hasOlderContext reports whether the conversation may hold turns before
// the recent window, the only case in which there is anything to recall.
func (s *Service) hasOlderContext(r retrieval) bool {
	return r.firstRecentTurn() > 0
}

// fillUsed lists the turns and summaries in used_context: recalled ones
// first (they are older), each kind in time order. A turn recalled for
// being next to a recalled one says so (reason "neighbour").
func (r *retrieval) fillUsed() {
	for _, d := range r.recalled {
		reason := ReasonRecalled
		if d.isNeighbour() {
			reason = ReasonNeighbour
		}
		item := contextItemOf(d.Document, reason)
		if !d.isNeighbour() {
			score, sim, ex := d.Score, d.Similarity, d.Explain
			item.Score, item.Similarity, item.Explain = &score, &sim, &ex
		}
		if d.Meta.Type == DocSummary {
			r.used.Summaries = append(r.used.Summaries, item)
		} else {
			r.used.Turns = append(r.used.Turns, item)
		}
	}
	for _, d := range r.summaries {
		r.used.Summaries = append(r.used.Summaries, contextItemOf(d, ReasonRecent))
	}
	for _, d := range r.turns {
		r.used.Turns = append(r.used.Turns, contextItemOf(d, ReasonRecent))
	}
}

func contextItemOf(d Document, reason string) ContextItem {
	return ContextItem{ID: d.ID, Text: d.Text, Role: d.Meta.Role, Timestamp: isoTime(d.Meta.Timestamp),
		TurnRange: d.Meta.TurnRange, Reason: reason}
}

func emptyUsedContext(entity string) UsedContext {
	u := UsedContext{FAQs: []ContextItem{}, Turns: []ContextItem{}, Memories: []ContextItem{}, Summaries: []ContextItem{}}
	if e := strings.TrimSpace(entity); e != "" {
		u.Entity = &e
	}
	return u
}

func reversed(docs []Document) []Document {
	out := make([]Document, len(docs))
	for i, d := range docs {
		out[len(docs)-1-i] = d
	}
	return out
}

// isoTime formats a timestamp as ISO 8601 with an explicit UTC offset.
func isoTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000-07:00")
}
