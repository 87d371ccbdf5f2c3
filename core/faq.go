package core

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// FAQEntry is one line of FAQ_FILE (JSON Lines).
type FAQEntry struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	Topic    string `json:"topic"`
}

// LoadFAQFile loads FAQ_FILE. Each entry's id is derived from its question,
// so loading the same file again updates entries instead of duplicating them.
func (s *Service) LoadFAQFile(ctx context.Context, path string) (int, error) {
	if path == "" || !s.opts.RAGEnabled {
		return 0, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("FAQ file (FAQ_FILE): %w", err)
	}
	defer f.Close()
	var entries []FAQEntry
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		raw := strings.TrimSpace(sc.Text())
		if raw == "" || strings.HasPrefix(raw, "#") {
			continue
		}
		var e FAQEntry
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			return 0, fmt.Errorf("FAQ file %s line %d: %w", path, line, err)
		}
		if strings.TrimSpace(e.Question) == "" || strings.TrimSpace(e.Answer) == "" {
			return 0, fmt.Errorf("FAQ file %s line %d: question and answer are required", path, line)
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("FAQ file %s: %w", path, err)
	}
	docs := make([]Document, 0, len(entries))
	for _, e := range entries {
		docs = append(docs, Document{
			ID:   stableDocID("faq:" + strings.TrimSpace(e.Question)),
			Text: "Q: " + strings.TrimSpace(e.Question) + "\nA: " + strings.TrimSpace(e.Answer),
			Meta: Metadata{Type: DocFAQ, Source: SourceKB, Scope: ScopeGlobal, Topic: e.Topic, EntryVersion: "auto"},
		})
	}
	return len(docs), s.putEmbedded(ctx, docs)
}

// SyncSpecialistFAQs writes one FAQ entry per enabled specialist with a
// stable id (UUIDv5 of the specialist and entry kind), and removes the entry
// of a specialist that is disabled, so a restart never duplicates them.
func (s *Service) SyncSpecialistFAQs(ctx context.Context) error {
	if !s.opts.RAGEnabled {
		return nil
	}
	var docs []Document
	for _, info := range s.specialists.Infos() {
		id := stableDocID("specialist:" + info.Name + ":capability")
		if !info.Enabled || !s.opts.SpecialistsEnabled || strings.TrimSpace(info.Capability) == "" {
			if err := s.store.Delete(ctx, id, DocFAQ); err != nil && KindOf(err) != KindNotFound {
				return err
			}
			continue
		}
		docs = append(docs, Document{ID: id, Text: info.Capability, Meta: Metadata{
			Type: DocFAQ, Source: SourceSystem, Scope: ScopeGlobal, Topic: "specialists",
			SpecialistName: info.Name, EntryVersion: info.Version,
		}})
	}
	return s.putEmbedded(ctx, docs)
}

// putEmbedded embeds and timestamps docs, then writes them in one batch.
func (s *Service) putEmbedded(ctx context.Context, docs []Document) error {
	if len(docs) == 0 {
		return nil
	}
	if err := s.embedDocs(ctx, docs); err != nil {
		return err
	}
	return s.store.Put(ctx, docs...)
}

// embedDocs fills in each document's embedding with one embedder call, and
// the timestamp "now" where none is set.
func (s *Service) embedDocs(ctx context.Context, docs []Document) error {
	texts := make([]string, len(docs))
	for i, d := range docs {
		texts[i] = d.Text
	}
	vecs, err := s.embedder.Embed(ctx, texts)
	if err != nil {
		return Wrap(KindUpstream, err, "embedding with %s failed", s.embedder.Name())
	}
	now := s.now().UTC()
	for i := range docs {
		docs[i].Embedding = vecs[i]
		if docs[i].Meta.Timestamp.IsZero() {
			docs[i].Meta.Timestamp = now
		}
	}
	return nil
}
