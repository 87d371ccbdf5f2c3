package core

import (
	"context"
	"math"
	"strings"
	"time"
)

// Search modes of the one retrieval function (RAG_SEARCH_MODE; `ada eval
// retrieval --mode`).
const (
	SearchHybrid  = "hybrid"
	SearchVector  = "vector"
	SearchKeyword = "keyword"
)

// ImportedTurn is one turn of a conversation imported from elsewhere (a
// benchmark), with its real time.
type ImportedTurn struct {
	Role string // user or assistant
	Text string
	Time time.Time
	// Speaker is who said it, as the conversation names them (stored as
	// the turn's speaker, and embedded with it: SpokenText); may be empty.
	Speaker string
	// ID is the document id to use; empty assigns one.
	ID string
}

// ImportTurns stores turns as one conversation, in order, with turn indexes
// from 0, in batches; it returns their document ids.
func (s *Service) ImportTurns(ctx context.Context, convID string, turns []ImportedTurn) ([]string, error) {
	if !ValidConversationID(convID) {
		return nil, Errorf(KindInvalid, "conversation_id: must have the form conv-<uuid>")
	}
	const batch = 256
	ids := make([]string, 0, len(turns))
	for start := 0; start < len(turns); start += batch {
		part := turns[start:min(start+batch, len(turns))]
		texts := make([]string, len(part))
		for i, t := range part {
			texts[i] = SpokenText(t.Speaker, t.Text)
		}
		vecs, err := s.embedder.Embed(ctx, texts)
		if err != nil {
			return ids, Wrap(KindUpstream, err, "embedding with %s failed", s.embedder.Name())
		}
		docs := make([]Document, len(part))
		for i, t := range part {
			idx := start + i
			id := t.ID
			if id == "" {
				id = NewDocID()
			}
			role := strings.TrimSpace(t.Role)
			if role != "assistant" {
				role = "user"
			}
			docs[i] = turnDocument(id, convID, role, t.Text, vecs[i], t.Time, idx, SourceImport)
			docs[i].Meta.Times = mentionedTimes(t.Text, t.Time, nil)
			docs[i].Meta.Speaker = oneLine(t.Speaker)
			ids = append(ids, id)
		}
		if err := s.store.Put(ctx, docs...); err != nil {
			return ids, err
		}
	}
	return ids, nil
}

// RecalledTurn is one turn found by RecallTurns, best first.
type RecalledTurn struct {
	Document
	Relevance float64
}

// RecallTurns ranks the turns of a conversation as the chat recalls them,
// through the same functions: by relevance to question with the session
// bonus and the times it names (resolved against at, in UTC: when it is
// asked), each turn followed by its neighbours, without the relevance
// floor (an evaluation wants the whole ranking); it returns the first k
// turns.
func (s *Service) RecallTurns(ctx context.Context, convID, question string, at time.Time, k int) ([]RecalledTurn, error) {
	vec, err := s.embedOne(ctx, question)
	if err != nil {
		return nil, err
	}
	docs, err := s.searchRelevant(ctx, question, vec, relevantQuery{Filter: Filter{Type: DocTurn, ConversationID: convID}, K: recallCandidates(k)})
	if err != nil {
		return nil, err
	}
	ranked := rankRecall(docs, timesAsked(question, at, nil), 0)
	found, err := s.withNeighbours(ctx, convID, ranked[:min(k, len(ranked))], math.MaxInt)
	if err != nil {
		return nil, err
	}
	out := make([]RecalledTurn, 0, k)
	for _, d := range found[:min(k, len(found))] {
		out = append(out, RecalledTurn{Document: d.Document, Relevance: d.Score})
	}
	return out, nil
}
