package core

import (
	"context"
	"strings"
	"time"
)

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
	// labels name the room's members in the turns the prompt shows,
	// worked out once for all of them (Roster.Labels).
	labels Labels
}

// effectiveK resolves a request's *_k against its setting: nil means the
// setting, 0 turns the section off.
func effectiveK(req *int, setting int) int {
	if req == nil {
		return setting
	}
	return *req
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
	ctx = WithReadScope(ctx) // it writes nothing: a store may read the conversation once
	var r retrieval
	r.used = emptyUsedContext(req.Entity)
	r.labels = req.Members.Labels()
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
	if req.ConversationID != "" && !req.minted { // a conversation just minted holds nothing to read
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
	asked := s.askedIn(req) // the times the prompt names, for memories and recall alike
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
		mems, err := s.rankMemories(ctx, req.Prompt, vec, Filter{Type: DocMemory, Scopes: scopes}, memK, s.opts.RelevanceFloor, asked)
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
		if err := s.recall(ctx, req, vec, asked, recallK, &r); err != nil {
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
