package chroma

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/ada-chat/ada/core"
)

// previewRunes bounds a conversation's preview, as on SQLite.
const previewRunes = 120

// RecentConversations lists conversations by their newest turn, newest
// first (ties by their first turn), each with its first user message as
// preview. The cost grows with the turns of the span read and of the
// conversations listed, then the texts of the previews are read by id.
func (s *Store) RecentConversations(ctx context.Context, limit int) ([]core.Conversation, error) {
	if limit <= 0 {
		return []core.Conversation{}, nil
	}
	newest := map[string]time.Time{}
	err := s.readBack(ctx, map[string]any{"type": string(core.DocTurn)}, time.Now(), func(turns []core.Document) bool {
		clear(newest)
		for _, t := range turns {
			id := t.Meta.ConversationID
			if ts, seen := newest[id]; id != "" && (!seen || t.Meta.Timestamp.After(ts)) {
				newest[id] = t.Meta.Timestamp
			}
		}
		return len(newest) > limit
	})
	if err != nil {
		return nil, err
	}
	// The limit newest, and any tied with the last of them: ties are
	// broken by the first turn, which only all of their turns tell.
	if len(newest) == 0 {
		return []core.Conversation{}, nil
	}
	times := make([]time.Time, 0, len(newest))
	for _, ts := range newest {
		times = append(times, ts)
	}
	slices.SortFunc(times, func(a, b time.Time) int { return b.Compare(a) })
	var chosen []string
	for id, ts := range newest {
		if !ts.Before(times[min(limit, len(times))-1]) {
			chosen = append(chosen, id)
		}
	}
	return s.conversations(ctx, chosen, limit)
}

// conversations reads every turn's metadata of the conversations ids and
// returns the limit newest of them, with their previews.
func (s *Store) conversations(ctx context.Context, ids []string, limit int) ([]core.Conversation, error) {
	out := []core.Conversation{}
	if len(ids) == 0 {
		return out, nil
	}
	got, err := s.c.get(ctx, s.docs, getRequest{Include: []string{"metadatas"}, Where: map[string]any{"$and": []any{
		map[string]any{"type": string(core.DocTurn)}, map[string]any{"conversation_id": map[string]any{"$in": ids}}}}})
	if err != nil {
		return nil, err
	}
	turns, err := documents(got)
	if err != nil {
		return nil, err
	}
	// Oldest first: a conversation's first turn is its tie-break, its first
	// user turn its preview.
	slices.SortFunc(turns, func(a, b core.Document) int {
		return cmp.Or(a.Meta.Timestamp.Compare(b.Meta.Timestamp), cmp.Compare(a.ID, b.ID))
	})
	type conversation struct {
		core.Conversation
		previewID string
	}
	byID := map[string]*conversation{}
	var order []*conversation
	for _, t := range turns {
		id := t.Meta.ConversationID
		c := byID[id]
		if c == nil {
			c = &conversation{Conversation: core.Conversation{ID: id}}
			byID[id] = c
			order = append(order, c)
		}
		c.TurnCount++
		c.Timestamp = t.Meta.Timestamp.UTC()
		if c.previewID == "" && t.Meta.Role == "user" {
			c.previewID = t.ID
		}
	}
	slices.SortStableFunc(order, func(a, b *conversation) int { return b.Timestamp.Compare(a.Timestamp) })
	order = order[:min(limit, len(order))]
	var previews []string
	for _, c := range order {
		if c.previewID != "" {
			previews = append(previews, c.previewID)
		}
	}
	texts, err := s.texts(ctx, s.docs, previews)
	if err != nil {
		return nil, err
	}
	for _, c := range order {
		c.Preview = texts[c.previewID]
		if r := []rune(c.Preview); len(r) > previewRunes {
			c.Preview = string(r[:previewRunes]) + "…"
		}
		out = append(out, c.Conversation)
	}
	return out, nil
}
