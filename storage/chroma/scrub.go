package chroma

import (
	"context"
	"slices"
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
	// The metadata alone first: at every Open after the first, no reason
	// is left to rewrite, and the entries' texts need not be read.
	got, err := s.c.get(ctx, s.history, getRequest{Where: map[string]any{"event": core.HistoryRetire},
		Include: []string{"metadatas"}})
	if err != nil {
		return err
	}
	scrubbed := map[string]map[string]any{}
	var ids, newer []string
	for i, id := range got.IDs {
		m := got.Metadatas[i]
		reason, _ := m["reason"].(string)
		to := core.ScrubRetireReason(core.HistoryRetire, reason)
		if to == reason {
			continue
		}
		m["reason"] = to
		scrubbed[id] = m
		ids = append(ids, id)
		newer = append(newer, strings.TrimPrefix(to, core.RetiredByPrefix))
	}
	if len(ids) == 0 {
		return nil
	}
	// An upsert writes the text too: the entries rewritten keep theirs.
	texts, err := s.c.get(ctx, s.history, getRequest{IDs: ids, Include: []string{"documents"}})
	if err != nil {
		return err
	}
	var r records
	for i, id := range texts.IDs {
		r.IDs, r.Embeddings = append(r.IDs, id), append(r.Embeddings, unitVector)
		r.Documents, r.Metadatas = append(r.Documents, texts.Documents[i]), append(r.Metadatas, scrubbed[id])
	}
	if err := s.c.upsert(ctx, s.history, r); err != nil {
		return err
	}
	var gone []string
	for chunk := range slices.Chunk(newer, getPage) {
		ended, err := s.c.get(ctx, s.history, getRequest{Include: []string{"metadatas"}, Where: map[string]any{"$and": []any{
			map[string]any{"memory_id": map[string]any{"$in": chunk}},
			map[string]any{"event": map[string]any{"$in": []string{core.HistoryDelete, core.HistoryExpire}}}}}})
		if err != nil {
			return err
		}
		for _, m := range ended.Metadatas {
			id, _ := m["memory_id"].(string)
			gone = append(gone, id)
		}
	}
	return s.forgetChain(ctx, gone...)
}
