package core

import (
	"cmp"
	"context"
	"slices"
	"strings"
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
	recalled  []relevantDoc // earlier turns and summaries, by time
	nextTurn  int           // turn_index of the new user turn
	// promptVec is the prompt's embedding, if retrieval needed it; saving
	// the user turn reuses it.
	promptVec []float32
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
	// Relevance, 0 to 1, ranks the results. Today it is the vector
	// similarity; keyword search fuses in here.
	Relevance  float64
	Similarity float64
}

// searchRelevant is the one retrieval function: the chat's FAQ, memory and
// recall lookups and the memory search API all rank through it, so a better
// ranking reaches all of them at once. vec is text's embedding.
func (s *Service) searchRelevant(ctx context.Context, text string, vec []float32, q relevantQuery) ([]relevantDoc, error) {
	_ = text // keyword search will use it
	hits, err := s.store.Search(ctx, VectorQuery{Filter: q.Filter, Vector: vec, K: q.K})
	if err != nil {
		return nil, err
	}
	out := make([]relevantDoc, 0, len(hits))
	for _, h := range hits {
		sim := round4(max(0, min(1, 1-h.Distance)))
		if sim <= 0 || sim < q.Floor {
			continue // shares nothing with the query, or too little
		}
		out = append(out, relevantDoc{Document: h.Document, Relevance: sim, Similarity: sim})
	}
	return out, nil
}

// retrieve gathers the context of req as DECISIONS.md says: the recent
// window of turns and summaries, what is recalled from earlier in the
// conversation, FAQs and memories, all above the relevance floor.
func (s *Service) retrieve(ctx context.Context, req ChatRequest) (retrieval, error) {
	r, err := s.retrieveAll(ctx, req)
	r.fillUsed()
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
			sim := d.Similarity
			r.faqs = append(r.faqs, d.Document)
			r.used.FAQs = append(r.used.FAQs, ContextItem{ID: d.ID, Text: d.Text, Topic: d.Meta.Topic, Similarity: &sim})
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
				Scope: m.Meta.Scope, Score: m.Score, Similarity: m.Similarity, Timestamp: isoTime(m.Meta.Timestamp)})
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

// hasOlderContext reports whether the conversation holds turns before the
// recent window, the only case in which there is anything to recall.
func (s *Service) hasOlderContext(r retrieval) bool {
	return r.nextTurn > len(r.turns)
}

// recall finds the earlier turns and summaries of the conversation most
// relevant to the prompt, beyond the recent window, and keeps the best k in
// time order.
func (s *Service) recall(ctx context.Context, req ChatRequest, vec []float32, k int, r *retrieval) error {
	var found []relevantDoc
	if s.opts.EnableTurn {
		// Only turns before the recent window: it is already in the prompt.
		before := r.nextTurn - len(r.turns) - 1
		docs, err := s.searchRelevant(ctx, req.Prompt, vec, relevantQuery{
			Filter: Filter{Type: DocTurn, ConversationID: req.ConversationID, UpToTurn: &before}, K: k, Floor: s.opts.RelevanceFloor})
		if err != nil {
			return err
		}
		found = append(found, docs...)
	}
	if s.opts.EnableSummary {
		docs, err := s.searchRelevant(ctx, req.Prompt, vec, relevantQuery{
			Filter: Filter{Type: DocSummary, ConversationID: req.ConversationID}, K: k + len(r.summaries), Floor: s.opts.RelevanceFloor})
		if err != nil {
			return err
		}
		for _, d := range docs {
			if !slices.ContainsFunc(r.summaries, func(x Document) bool { return x.ID == d.ID }) {
				found = append(found, d)
			}
		}
	}
	slices.SortStableFunc(found, func(a, b relevantDoc) int { return cmp.Compare(b.Relevance, a.Relevance) })
	found = found[:min(k, len(found))]
	slices.SortStableFunc(found, func(a, b relevantDoc) int { return a.Meta.Timestamp.Compare(b.Meta.Timestamp) })
	r.recalled = found
	return nil
}

// fillUsed lists the turns and summaries in used_context: recalled ones
// first (they are older), each kind in time order.
func (r *retrieval) fillUsed() {
	for _, d := range r.recalled {
		item := contextItemOf(d.Document, ReasonRecalled)
		rel, sim := d.Relevance, d.Similarity
		item.Score, item.Similarity = &rel, &sim
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
