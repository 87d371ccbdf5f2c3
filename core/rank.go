package core

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// How things are ranked. Every search first gives each result a relevance
// to the query, 0 to 1 (fuse); the floor applies to it. Memories are then
// re-ranked by a score that adds importance and recency (score), recalled
// turns by one that adds the relevance of their session and of a time the
// prompt names (rankRecall). FAQs rank by relevance alone. When a prompt is
// over its budget, the least relevant items go first (fitBudget).

// DefaultRelevanceFloor is RAG_RELEVANCE_FLOOR's default: with the hash
// embedder, texts that share no word score below it (make bench and
// core's tests measure this).
const DefaultRelevanceFloor = 0.15

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
	// The terms of a memory's score; they add up to it, with TimeBonus
	// when set.
	RelevanceTerm  *float64 `json:"relevance_term,omitempty"`
	ImportanceTerm *float64 `json:"importance_term,omitempty"`
	RecencyTerm    *float64 `json:"recency_term,omitempty"`
	// SessionBonus is a recalled turn's share of the best relevance in its
	// session (see rankRecall); its score is relevance plus this.
	SessionBonus *float64 `json:"session_bonus,omitempty"`
	// TimeBonus is set on a recalled turn or a memory of a time the prompt
	// names ("in June", "on 13 October 2023", "last week"): half the best
	// relevance among the candidates (see rankRecall), for a memory half
	// the best relevance term (memoryTimeBonuses), added to its score; or
	// on a recalled turn mentioning a time when the prompt asks when and
	// names none, askedWhenWeight of the best relevance (askedWhenBonus).
	// TimeMatch says which time matched and why (written then, or
	// mentioning it: "says \"yesterday\" (2023-05-07) …"), and for a
	// recalled turn below the relevance floor, that it was taken for
	// that time (admitBelowFloor).
	TimeBonus *float64 `json:"time_bonus,omitempty"`
	TimeMatch string   `json:"time_match,omitempty"`
}

// keywordScale is the BM25 score from which a match counts as fully
// relevant. The best match of a query counts as fully relevant when it is
// at least this strong (one rare word of the query in a short text scores
// about this), so a rare name ranks high however few of the query's common
// words it shares; when the best is weaker (only common words matched),
// everything scales down and the relevance floor can keep it out.
const keywordScale = 5.0

// fuse ranks the candidates of the vector and keyword searches by
// relevance, best first, drops those below floor and keeps the best k.
// Every candidate's similarity to vec (the query's embedding) is exact, its
// BM25 mapped to 0..1, and in hybrid mode the two are fused as independent
// evidence: relevance = 1 − (1 − similarity)(1 − keyword relevance). A text
// that shares a rare word with the query ranks high even when the vectors
// miss it, and one that matches both ranks above either.
func fuse(mode string, vec []float32, vecHits []Hit, kwHits []KeywordHit, floor float64, k int) []relevantDoc {
	// One allocation for every candidate (its capacity is never passed,
	// so the pointers stay valid) rather than one each.
	all := make([]relevantDoc, 0, len(vecHits)+len(kwHits))
	add := func(d relevantDoc) *relevantDoc {
		all = append(all, d)
		return &all[len(all)-1]
	}
	byID := make(map[string]*relevantDoc, cap(all))
	order := make([]*relevantDoc, 0, cap(all))
	for i, h := range vecHits {
		rank := i + 1
		d := add(relevantDoc{Document: h.Document, Similarity: round4(max(0, min(1, 1-h.Distance)))})
		d.Explain.VectorRank = &rank
		byID[h.ID] = d
		order = append(order, d)
	}
	for i, h := range kwHits {
		rank := i + 1
		d, ok := byID[h.ID]
		if !ok {
			d = add(relevantDoc{Document: h.Document, Similarity: round4(max(0, min(1, cosineSimilarity(vec, h.Embedding))))})
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
	kept := order[:0]
	for _, d := range order {
		kw := d.Explain.BM25 / best
		switch mode {
		case SearchVector:
			d.Relevance = d.Similarity
		case SearchKeyword:
			d.Relevance = round4(kw)
		default:
			d.Relevance = round4(1 - (1-d.Similarity)*(1-kw))
		}
		d.Explain.Similarity, d.Explain.KeywordRelevance, d.Explain.Relevance = d.Similarity, round4(kw), d.Relevance
		if d.Relevance <= 0 || d.Relevance < floor {
			continue // shares nothing with the query, or too little
		}
		kept = append(kept, d)
	}
	// Pointers are sorted, not the documents: moving a Document (its
	// text, vector and metadata) costs a write barrier per pointer field,
	// a tenth of a small store's search (pprof).
	slices.SortStableFunc(kept, func(a, b *relevantDoc) int { return cmp.Compare(b.Relevance, a.Relevance) })
	out := make([]relevantDoc, 0, min(len(kept), k))
	for _, d := range kept[:min(len(kept), k)] {
		out = append(out, *d)
	}
	return out
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

// scoreMemories re-ranks memories found by relevance by their score, best
// first, and keeps the best k: importance and recency re-rank only what is
// relevant, and so does a time the query names (memoryTimeBonuses). Expired
// memories never appear.
func (s *Service) scoreMemories(docs []relevantDoc, k int, now time.Time, asked askedTimes) []Memory {
	// Scored first, and only the best k made into Memories: building and
	// sorting them all cost more than the ranking itself (pprof).
	type scoredMemory struct {
		doc                            *relevantDoc
		relTerm, impTerm, bonus, score float64
		timeBonus                      *float64
		timeMatch                      string
	}
	times := s.memoryTimeBonuses(asked, docs)
	ranked := make([]scoredMemory, 0, len(docs))
	for i := range docs {
		d := &docs[i]
		if expired(d.Document, now) {
			continue
		}
		c := scoredMemory{doc: d}
		c.relTerm, c.impTerm, c.bonus, c.score = s.score(d.Relevance, d.Meta.Timestamp, d.Meta.Importance, now)
		if times != nil && times[i].why != "" {
			c.timeBonus, c.timeMatch, c.score = &times[i].bonus, times[i].why, round4(c.score+times[i].bonus)
		}
		ranked = append(ranked, c)
	}
	slices.SortStableFunc(ranked, func(a, b scoredMemory) int { return cmp.Compare(b.score, a.score) })
	out := make([]Memory, 0, min(len(ranked), k))
	for _, c := range ranked[:min(len(ranked), k)] {
		m := memoryFromDoc(c.doc.Document)
		sim, ex := c.doc.Similarity, c.doc.Explain
		ex.RelevanceTerm, ex.ImportanceTerm, ex.RecencyTerm = &c.relTerm, &c.impTerm, &c.bonus
		ex.TimeBonus, ex.TimeMatch = c.timeBonus, c.timeMatch
		m.Similarity, m.RecencyBonus, m.Score, m.Explain = &sim, &c.bonus, &c.score, &ex
		out = append(out, m)
	}
	return out
}

// score is DECISIONS.md's ranking, with relevance (fused keyword and
// vector evidence) for similarity:
// W_sim·relevance + W_imp·(importance/5) + recency bonus.
// It returns the three terms and their sum; the rounded terms add up to
// the score.
func (s *Service) score(relevance float64, ts time.Time, importance int, now time.Time) (relTerm, impTerm, bonus, score float64) {
	relTerm, impTerm, bonus = round4(s.opts.SimWeight*relevance), round4(s.opts.ImportanceWeight*float64(importance)/5), round4(s.recencyBonus(ts, now))
	return relTerm, impTerm, bonus, round4(relTerm + impTerm + bonus)
}

// recencyBonus is bonus·0.5^(age/half-life): it halves every half-life. A
// timestamp in the future counts as now; without a half-life the bonus
// does not decay.
func (s *Service) recencyBonus(ts, now time.Time) float64 {
	age := now.Sub(ts)
	if age < 0 {
		age = 0
	}
	bonus := s.opts.RecencyBonus
	if s.opts.RecencyHalfLife > 0 {
		bonus *= math.Pow(0.5, float64(age)/float64(s.opts.RecencyHalfLife))
	}
	return bonus
}

// How recalled turns rank. Each rule was kept because it moved `ada eval
// chat` and `ada eval retrieval` on the LoCoMo development half (the
// table in docs/operators.md); none names anything of that benchmark.
const (
	// sessionGap ends a session: turns further apart than this belong to
	// different sittings of the conversation.
	sessionGap = time.Hour
	// sessionWeight is the share of the best relevance in a turn's session
	// added to the turn's own. What a question asks about is usually talked
	// about for a while: a turn among relevant turns ranks above a lone
	// turn of the same relevance elsewhere.
	sessionWeight = 0.5
	// namedTimeWeight is the share of the best relevance among the
	// candidates added to a turn of a time the prompt names: a question
	// about "June" or "last week" asks about what was said then, or about
	// then.
	namedTimeWeight = 0.5
)

// rankRecall scores docs (turns and summaries of one conversation with
// their relevance to query) and sorts them best first. A turn's score is
// its relevance plus sessionWeight times the best relevance among the
// turns of its session, plus namedTimeWeight times the best relevance of
// all when the turn is relevant itself and of a time the query names
// (askedTimes.match: written then, or mentioning it), or, when the query
// asks for a time and names none, askedWhenWeight times it when the turn
// mentions a time (askedWhenBonus); a summary is a session of its own.
// A turn of the time named that shares a word with the query and is
// below floor is taken as if at the floor (admitBelowFloor), unless such
// turns are more than half of those sharing a word with it.
func rankRecall(docs []relevantDoc, asked askedTimes, floor float64) []recalledDoc {
	out := make([]recalledDoc, len(docs))
	top := 0.0
	for i, d := range docs {
		out[i] = recalledDoc{relevantDoc: d}
		top = max(top, d.Relevance)
	}
	var turns []int
	for i, d := range out {
		if d.Meta.Type == DocTurn {
			turns = append(turns, i)
		} else {
			d.Score = round4(d.Relevance * (1 + sessionWeight))
			out[i] = d
		}
	}
	slices.SortFunc(turns, func(a, b int) int { return out[a].Meta.Timestamp.Compare(out[b].Meta.Timestamp) })
	for start := 0; start < len(turns); {
		end, best := start+1, out[turns[start]].Relevance
		for end < len(turns) && out[turns[end]].Meta.Timestamp.Sub(out[turns[end-1]].Meta.Timestamp) <= sessionGap {
			best = max(best, out[turns[end]].Relevance)
			end++
		}
		for _, i := range turns[start:end] {
			bonus := round4(sessionWeight * best)
			out[i].Score = round4(out[i].Relevance + bonus)
			out[i].Explain.SessionBonus = &bonus
		}
		start = end
	}
	if asked.asksWhen {
		askedWhenBonus(out, turns, top)
	}
	if !asked.empty() {
		bonus := round4(namedTimeWeight * top)
		var shared, matched []int
		for _, i := range turns {
			if out[i].Relevance <= 0 {
				continue
			}
			if out[i].Explain.KeywordRank != nil {
				shared = append(shared, i)
			}
			if why := asked.match(out[i].Document); why != "" {
				out[i].Score = round4(out[i].Score + bonus)
				out[i].Explain.TimeBonus, out[i].Explain.TimeMatch = &bonus, why
				if out[i].Explain.KeywordRank != nil {
					matched = append(matched, i)
				}
			}
		}
		if 2*len(matched) <= len(shared) {
			admitBelowFloor(out, matched, floor)
		}
	}
	slices.SortStableFunc(out, func(a, b recalledDoc) int { return cmp.Compare(b.Score, a.Score) })
	return out
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
