package core

import (
	"context"
	"fmt"
)

// maxDeleteReason bounds the reason a client gives for deleting turns.
const maxDeleteReason = 200

// maxSummariesPerConversation bounds the summaries read to find those that
// cover deleted turns (a conversation of 20,000 turns has about 1,000).
const maxSummariesPerConversation = 10000

// DeleteTurns deletes turns of one conversation and what was derived only
// from them (DECISIONS.md, provenance): the automatic memories whose sources
// are all gone, in the same transaction and with reason in their history,
// and the summaries that covered a deleted turn. Those summaries are removed
// at once, so the deleted text is nowhere any more, and rewritten in the
// background from the turns of their range that remain. The bridge calls
// this when a member redacts a message. Ids that are not turns of the
// conversation are skipped; none at all is a not-found error.
func (s *Service) DeleteTurns(ctx context.Context, convID string, ids []string, reason string) (int, error) {
	if err := s.requireRAG(); err != nil {
		return 0, err
	}
	if !ValidConversationID(convID) {
		return 0, Errorf(KindNotFound, "conversation %s not found", convID)
	}
	if len([]rune(reason)) > maxDeleteReason {
		return 0, Errorf(KindInvalid, "reason: must be at most %d characters", maxDeleteReason)
	}
	var turns []Document
	for _, id := range ids {
		if !ValidDocID(id) {
			continue
		}
		d, err := s.store.Get(ctx, id)
		switch {
		case KindOf(err) == KindNotFound:
			continue
		case err != nil:
			return 0, err
		case d.Meta.Type == DocTurn && d.Meta.ConversationID == convID:
			turns = append(turns, d)
		}
	}
	if len(turns) == 0 {
		return 0, Errorf(KindNotFound, "no such turn in conversation %s", convID)
	}
	if _, err := s.deleteTurnDocs(ctx, convID, turns, reason); err != nil {
		return 0, err
	}
	return len(turns), nil
}

// deleteTurnDocs deletes turns of one conversation in one change, with the
// automatic memories whose sources are all gone (the store does that) and
// the summaries covering them, which are rewritten in the background from
// the turns that remain: each once, however many of its turns went. It
// returns how many summaries were removed.
func (s *Service) deleteTurnDocs(ctx context.Context, convID string, turns []Document, reason string) (int, error) {
	covering, err := s.summariesCovering(ctx, convID, turns)
	if err != nil {
		return 0, err
	}
	c := Change{Reason: reason}
	for _, t := range turns {
		c.Delete = append(c.Delete, t.ID)
	}
	for _, sum := range covering {
		c.Delete = append(c.Delete, sum.ID)
	}
	if err := s.applyDeletion(ctx, c); err != nil {
		return 0, err
	}
	for _, sum := range covering {
		s.bg.enqueue(ctx, convID, "summary rewrite", func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, summaryTimeout)
			defer cancel()
			err := s.rewriteSummary(ctx, sum)
			if err != nil {
				s.logger(ctx).Warn("summary rewrite failed", "conversation_id", convID, "error", err)
			}
			return err
		})
	}
	return len(covering), nil
}

// summariesCovering returns the conversation's summaries whose turn range
// holds one of turns.
func (s *Service) summariesCovering(ctx context.Context, convID string, turns []Document) ([]Document, error) {
	sums, err := s.store.List(ctx, Filter{Type: DocSummary, ConversationID: convID}, maxSummariesPerConversation)
	if err != nil {
		return nil, err
	}
	var out []Document
	for _, sum := range sums {
		first, last, ok := parseTurnRange(sum.Meta.TurnRange)
		if !ok {
			continue
		}
		for _, t := range turns {
			if t.Meta.TurnIndex != nil && *t.Meta.TurnIndex >= first && *t.Meta.TurnIndex <= last {
				out = append(out, sum)
				break
			}
		}
	}
	return out, nil
}

// rewriteSummary writes a removed summary again from the turns of its range
// that remain: same start, index and time, so the conversation's summaries
// stay contiguous and in order. Its range ends at the last turn that
// remains: when the newest turns were deleted, the next turns take their
// indices again, and a range still claiming them would leave those new
// turns out of every summary. Nothing is written when no turn remains, or
// when a later summary already covers part of the range.
func (s *Service) rewriteSummary(ctx context.Context, old Document) error {
	first, last, ok := parseTurnRange(old.Meta.TurnRange)
	if !ok {
		return nil
	}
	sums, err := s.store.List(ctx, Filter{Type: DocSummary, ConversationID: old.Meta.ConversationID}, maxSummariesPerConversation)
	if err != nil {
		return err
	}
	for _, sum := range sums {
		if f, l, ok := parseTurnRange(sum.Meta.TurnRange); ok && f <= last && l >= first {
			return nil // summarised again meanwhile
		}
	}
	after := first - 1
	turns, text, vec, err := s.summaryOfStored(ctx, Filter{Type: DocTurn, ConversationID: old.Meta.ConversationID, AfterTurn: &after, UpToTurn: &last})
	if err != nil || len(turns) == 0 {
		return err
	}
	meta := old.Meta
	meta.TurnRange = fmt.Sprintf("%d-%d", first, *turns[0].Meta.TurnIndex) // turns are newest first
	return s.store.Put(ctx, Document{ID: NewDocID(), Text: text, Embedding: vec, Meta: meta})
}
