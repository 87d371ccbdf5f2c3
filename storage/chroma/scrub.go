package chroma

import (
	"context"
	"strings"

	"github.com/ada-chat/ada/core"
)

// scrubRetireReasons rewrites the reasons that earlier versions gave a
// correction ("replaced by doc-…: <the newer text>") to name the newer
// memory only (core.RetireReason), and blanks the words of the versions
// whose newer memory was forgotten since: the words then outlived it.
// SQLite's migration 16 does the same. It runs at Open; once rewritten, an
// entry is not touched again.
func (s *Store) scrubRetireReasons(ctx context.Context) error {
	got, err := s.c.get(ctx, s.history, getRequest{Where: map[string]any{"event": core.HistoryRetire},
		Include: []string{"documents", "metadatas"}})
	if err != nil {
		return err
	}
	var r records
	var newer []string
	for i, id := range got.IDs {
		m := got.Metadatas[i]
		reason, _ := m["reason"].(string)
		scrubbed := core.ScrubRetireReason(core.HistoryRetire, reason)
		if scrubbed == reason {
			continue
		}
		m["reason"] = scrubbed
		newID := strings.TrimPrefix(scrubbed, core.RetiredByPrefix)
		r.IDs, r.Embeddings = append(r.IDs, id), append(r.Embeddings, unitVector)
		r.Documents, r.Metadatas = append(r.Documents, got.Documents[i]), append(r.Metadatas, m)
		newer = append(newer, newID)
	}
	if err := s.c.upsert(ctx, s.history, r); err != nil {
		return err
	}
	for _, id := range newer {
		ended, err := s.c.get(ctx, s.history, getRequest{Include: []string{}, Where: map[string]any{"$and": []any{
			map[string]any{"memory_id": id}, map[string]any{"event": map[string]any{"$in": []string{core.HistoryDelete, core.HistoryExpire}}}}}})
		if err != nil {
			return err
		}
		if len(ended.IDs) > 0 {
			if err := s.forgetChain(ctx, id); err != nil {
				return err
			}
		}
	}
	return nil
}
