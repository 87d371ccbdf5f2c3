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
// group: every turn's metadata (not its text) is read and grouped here,
// then the text of the limit previews only.
func (s *Store) RecentConversations(ctx context.Context, limit int) ([]core.Conversation, error) {
	turns, err := s.find(ctx, core.Filter{Type: core.DocTurn}, nil)
	if err != nil {
		return nil, err
	}
	// Oldest first, so the first user turn seen is the preview.
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
		if id == "" {
			continue
		}
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
	var ids []string
	for _, c := range order {
		if c.previewID != "" {
			ids = append(ids, c.previewID)
		}
	}
	texts, err := s.texts(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]core.Conversation, 0, len(order))
	for _, c := range order {
		c.Preview = texts[c.previewID]
		if r := []rune(c.Preview); len(r) > previewRunes {
			c.Preview = string(r[:previewRunes]) + "…"
		}
		out = append(out, c.Conversation)
	}
	return out, nil
}

// Backend names the backend for health.
func (s *Store) Backend() string { return "chroma" }

// Stats reports the backend, the server's version and heartbeat, document
// counts and the embedder that wrote the vectors. Chroma counts a
// collection but cannot count by metadata: the total is its count, the
// types other than turns are counted by reading their ids, and the turns,
// most of a store, are the difference. Other replicas writing meanwhile
// may make the counts differ by what they wrote.
func (s *Store) Stats(ctx context.Context) (core.StoreStats, error) {
	st := core.StoreStats{Backend: s.Backend(), Path: s.url, Dimensions: core.Dim, ByType: map[core.DocType]int{}}
	var err error
	if st.Heartbeat, err = s.c.heartbeat(ctx); err != nil {
		return st, err
	}
	if st.Version, err = s.c.version(ctx); err != nil {
		return st, err
	}
	total, err := s.c.count(ctx, s.docs)
	if err != nil {
		return st, err
	}
	for _, t := range core.DocTypes {
		if t == core.DocTurn {
			continue
		}
		got, err := s.c.get(ctx, s.docs, getRequest{Where: map[string]any{"type": string(t)}, Include: []string{}})
		if err != nil {
			return st, err
		}
		if n := len(got.IDs); n > 0 {
			st.ByType[t] = n
			st.Total += n
		}
	}
	if turns := total - st.Total; turns > 0 {
		st.ByType[core.DocTurn] = turns
		st.Total += turns
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
