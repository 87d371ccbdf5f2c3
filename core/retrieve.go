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
	turns     []Document // oldest first
	memories  []Memory
	faqs      []Document
	summaries []Document // oldest first
	nextTurn  int        // turn_index of the new user turn
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

// retrieve gathers the five kinds of context for req as DECISIONS.md says.
func (s *Service) retrieve(ctx context.Context, req ChatRequest) (retrieval, error) {
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
	// One query gives both the turns to show and, from the newest, the next
	// turn index.
	if req.ConversationID != "" {
		k := effectiveK(req.TurnsK, s.opts.TurnTopK)
		if !s.opts.EnableTurn {
			k = 0
		}
		docs, err := s.store.List(ctx, Filter{Type: DocTurn, ConversationID: req.ConversationID}, max(k, 1))
		if err != nil {
			return r, err
		}
		if len(docs) > 0 && docs[0].Meta.TurnIndex != nil {
			r.nextTurn = *docs[0].Meta.TurnIndex + 1
		}
		r.turns = reversed(docs[:min(k, len(docs))])
		for _, d := range r.turns {
			r.used.Turns = append(r.used.Turns, ContextItem{ID: d.ID, Text: d.Text, Role: d.Meta.Role, Timestamp: isoTime(d.Meta.Timestamp)})
		}
	}
	if s.opts.EnableSummary && s.opts.SummaryTopK > 0 && req.ConversationID != "" {
		docs, err := s.store.List(ctx, Filter{Type: DocSummary, ConversationID: req.ConversationID}, s.opts.SummaryTopK)
		if err != nil {
			return r, err
		}
		r.summaries = reversed(docs)
		for _, d := range r.summaries {
			r.used.Summaries = append(r.used.Summaries, ContextItem{ID: d.ID, Text: d.Text, Timestamp: isoTime(d.Meta.Timestamp), TurnRange: d.Meta.TurnRange})
		}
	}
	faqK := effectiveK(req.FAQK, s.opts.FAQTopK)
	memK := effectiveK(req.MemoryK, s.opts.MemoryTopK)
	if (faqK > 0 && s.opts.EnableFAQ) || (memK > 0 && s.opts.EnableMemory) {
		if err := s.retrieveSimilar(ctx, req, faqK, memK, &r); err != nil {
			return r, err
		}
	}
	return r, nil
}

// retrieveSimilar fetches FAQs and memories, embedding the prompt once.
func (s *Service) retrieveSimilar(ctx context.Context, req ChatRequest, faqK, memK int, r *retrieval) error {
	vec, err := s.embedOne(ctx, req.Prompt)
	if err != nil {
		return err
	}
	r.promptVec = vec
	if faqK > 0 && s.opts.EnableFAQ {
		hits, err := s.store.Search(ctx, VectorQuery{Filter: Filter{Type: DocFAQ}, Vector: vec, K: faqK})
		if err != nil {
			return err
		}
		for _, h := range hits {
			sim := round4(max(0, min(1, 1-h.Distance)))
			r.faqs = append(r.faqs, h.Document)
			r.used.FAQs = append(r.used.FAQs, ContextItem{ID: h.ID, Text: h.Text, Topic: h.Meta.Topic, Similarity: &sim})
		}
	}
	if memK > 0 && s.opts.EnableMemory {
		scopes, err := searchScopes("", req.Entity)
		if err != nil {
			return err
		}
		mems, err := s.rankVector(ctx, vec, Filter{Type: DocMemory, Scopes: scopes}, memK)
		if err != nil {
			return err
		}
		r.memories = mems
		for _, m := range mems {
			r.used.Memories = append(r.used.Memories, ContextItem{ID: m.ID, Text: m.Text, Importance: m.Meta.Importance,
				Scope: m.Meta.Scope, Score: m.Score, Similarity: m.Similarity, Timestamp: isoTime(m.Meta.Timestamp)})
		}
	}
	return nil
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
