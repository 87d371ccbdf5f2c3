package core

import (
	"context"
	"sort"
	"time"
)

// maxConversationTurns bounds one conversation listing.
const maxConversationTurns = 10000

// ConversationTurn is one turn as clients see it.
type ConversationTurn struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	Timestamp string `json:"timestamp"`
	TurnIndex int    `json:"turn_index"`
	// Speaker is the display name of the room member who wrote a user
	// turn, as it was then; UserID their Matrix user id.
	Speaker string `json:"speaker,omitempty"`
	UserID  string `json:"user_id,omitempty"`
}

// RecentConversations lists conversations, newest first.
func (s *Service) RecentConversations(ctx context.Context, limit int) ([]Conversation, error) {
	if limit < 1 || limit > maxRecentConversations {
		return nil, Errorf(KindInvalid, "limit: must be 1..%d, got %d", maxRecentConversations, limit)
	}
	return s.store.RecentConversations(ctx, limit)
}

// ConversationTurns returns every turn of a conversation in order.
func (s *Service) ConversationTurns(ctx context.Context, id string) ([]ConversationTurn, error) {
	if !ValidConversationID(id) {
		return nil, Errorf(KindNotFound, "conversation %s not found", id)
	}
	docs, err := s.store.List(ctx, Filter{Type: DocTurn, ConversationID: id}, maxConversationTurns)
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, Errorf(KindNotFound, "conversation %s not found", id)
	}
	out := make([]ConversationTurn, len(docs))
	for i, d := range docs {
		idx := 0
		if d.Meta.TurnIndex != nil {
			idx = *d.Meta.TurnIndex
		}
		out[i] = ConversationTurn{Role: d.Meta.Role, Content: d.Text, Timestamp: isoTime(d.Meta.Timestamp), TurnIndex: idx,
			Speaker: d.Meta.Speaker, UserID: d.Meta.UserID}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TurnIndex < out[j].TurnIndex })
	return out, nil
}

// DeleteConversation deletes the turns and summaries of a conversation and
// returns how many went. Memories that merely carry its id stay: they were
// saved on purpose, and outlive the conversation. An automatic memory whose
// source turns are all gone is deleted by the store in the same transaction,
// with the reason in its history.
func (s *Service) DeleteConversation(ctx context.Context, id string) (int, error) {
	if !ValidConversationID(id) {
		return 0, Errorf(KindNotFound, "conversation %s not found", id)
	}
	n := 0
	for _, t := range []DocType{DocTurn, DocSummary} {
		k, err := s.deleteWhere(ctx, Filter{Type: t, ConversationID: id})
		n += k
		if err != nil {
			return n, err
		}
	}
	if n == 0 {
		return 0, Errorf(KindNotFound, "conversation %s not found", id)
	}
	return n, nil
}

// SweepRetention deletes every document a chat room caused to be stored
// (turns, summaries, memories) that is older than cutoff.
// It also sweeps expired memories and prunes the history of room memories.
func (s *Service) SweepRetention(ctx context.Context, cutoff time.Time) (int, error) {
	n, err := s.deleteWhere(ctx, Filter{AnyRoom: true, OlderThan: cutoff})
	if err != nil {
		return n, err
	}
	if _, err := s.store.PruneHistory(ctx, cutoff); err != nil {
		return n, err
	}
	orphans, err := s.removeSummariesOfDeletedTurns(ctx)
	if err != nil {
		return n + orphans, err
	}
	expired, err := s.sweepExpired(ctx)
	return n + orphans + expired, err
}

// maxSweptSummaries bounds the room summaries one retention sweep checks.
const maxSweptSummaries = 10000

// removeSummariesOfDeletedTurns removes the room summaries whose first
// covered turn is gone: a summary must not keep what retention deleted
// (DECISIONS.md: a summary whose turns are deleted is rewritten or
// removed; removal needs no model, and later turns get summaries of their
// own).
func (s *Service) removeSummariesOfDeletedTurns(ctx context.Context) (int, error) {
	sums, err := s.store.List(ctx, Filter{Type: DocSummary, AnyRoom: true}, maxSweptSummaries)
	if err != nil {
		return 0, err
	}
	var gone []string
	for _, sum := range sums {
		first, _, ok := parseTurnRange(sum.Meta.TurnRange)
		if !ok {
			continue
		}
		before := first - 1
		turns, err := s.store.List(ctx, Filter{Type: DocTurn, ConversationID: sum.Meta.ConversationID, AfterTurn: &before, UpToTurn: &first}, 1)
		if err != nil {
			return 0, err
		}
		if len(turns) == 0 {
			gone = append(gone, sum.ID)
		}
	}
	if len(gone) == 0 {
		return 0, nil
	}
	return len(gone), s.applyDeletion(ctx, Change{Delete: gone})
}
