package chroma

import (
	"cmp"
	"context"
	"slices"

	"github.com/ada-chat/ada/core"
)

// previewRunes bounds a conversation's preview, as on SQLite.
const previewRunes = 120

// RecentConversations lists conversations by their newest turn, newest
// first, each with its first user message as preview. Chroma cannot
// group: every turn's metadata is read and grouped here.
func (s *Store) RecentConversations(ctx context.Context, limit int) ([]core.Conversation, error) {
	turns, err := s.find(ctx, core.Filter{Type: core.DocTurn}, []string{"documents"})
	if err != nil {
		return nil, err
	}
	// Oldest first, so the first user turn seen is the preview.
	slices.SortFunc(turns, func(a, b core.Document) int {
		return cmp.Or(a.Meta.Timestamp.Compare(b.Meta.Timestamp), cmp.Compare(a.ID, b.ID))
	})
	byID := map[string]*core.Conversation{}
	var order []*core.Conversation
	for _, t := range turns {
		id := t.Meta.ConversationID
		if id == "" {
			continue
		}
		c := byID[id]
		if c == nil {
			c = &core.Conversation{ID: id}
			byID[id] = c
			order = append(order, c)
		}
		c.TurnCount++
		c.Timestamp = t.Meta.Timestamp.UTC()
		if c.Preview == "" && t.Meta.Role == "user" {
			c.Preview = t.Text
			if r := []rune(c.Preview); len(r) > previewRunes {
				c.Preview = string(r[:previewRunes]) + "…"
			}
		}
	}
	slices.SortStableFunc(order, func(a, b *core.Conversation) int { return b.Timestamp.Compare(a.Timestamp) })
	out := make([]core.Conversation, 0, min(limit, len(order)))
	for _, c := range order[:min(limit, len(order))] {
		out = append(out, *c)
	}
	return out, nil
}

// Backend names the backend for health.
func (s *Store) Backend() string { return "chroma" }

// Stats reports the backend, the server's version and heartbeat, document
// counts and the embedder that wrote the vectors.
func (s *Store) Stats(ctx context.Context) (core.StoreStats, error) {
	st := core.StoreStats{Backend: s.Backend(), Path: s.url, Dimensions: core.Dim, ByType: map[core.DocType]int{}}
	var err error
	if st.Heartbeat, err = s.c.heartbeat(ctx); err != nil {
		return st, err
	}
	if st.Version, err = s.c.version(ctx); err != nil {
		return st, err
	}
	for _, t := range core.DocTypes {
		got, err := s.c.get(ctx, s.docs, getRequest{Where: map[string]any{"type": string(t)}, Include: []string{}})
		if err != nil {
			return st, err
		}
		if n := len(got.IDs); n > 0 {
			st.ByType[t] = n
			st.Total += n
		}
	}
	st.Embedder, err = s.embedder(ctx)
	return st, err
}

const embedderID = "embedder"

func (s *Store) embedder(ctx context.Context) (string, error) {
	got, err := s.c.get(ctx, s.stmeta, getRequest{IDs: []string{embedderID}, Include: []string{"documents"}})
	if err != nil || len(got.IDs) == 0 {
		return "", err
	}
	return got.Documents[0], nil
}

// CheckEmbedder records name as the store's embedder on first use, and
// refuses a different embedder than the one that wrote the stored vectors
// (as storage.DB.CheckEmbedder).
func (s *Store) CheckEmbedder(ctx context.Context, name string) error {
	current, err := s.embedder(ctx)
	if err != nil {
		return err
	}
	switch current {
	case name:
		return nil
	case "":
		return s.c.upsert(ctx, s.stmeta, records{IDs: []string{embedderID}, Embeddings: [][]float32{unitVector},
			Documents: []string{name}, Metadatas: []map[string]any{{"kind": "embedder"}}})
	default:
		return core.EmbedderMismatch(current, name)
	}
}
