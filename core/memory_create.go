package core

import "context"

// CreateMemory validates, embeds and stores a memory. If its scope already
// holds the same fact, that memory is refreshed instead and returned with
// Deduplicated set.
func (s *Service) CreateMemory(ctx context.Context, in MemoryInput) (Memory, error) {
	if err := s.requireRAG(); err != nil {
		return Memory{}, err
	}
	doc, err := s.memoryDocument(ctx, in)
	if err != nil {
		return Memory{}, err
	}
	saved, dedup, err := s.saveMemory(ctx, doc, nil, "")
	if err != nil {
		return Memory{}, err
	}
	m := memoryFromDoc(saved)
	m.Deduplicated = &dedup
	return m, nil
}

func (s *Service) memoryDocument(ctx context.Context, in MemoryInput) (Document, error) {
	f, err := memoryFieldsOf(in, s.now())
	if err != nil {
		return Document{}, err
	}
	if in.Source == "" {
		in.Source = SourceChat
	}
	vec, err := s.embedOne(ctx, f.text)
	if err != nil {
		return Document{}, err
	}
	return Document{
		ID: NewDocID(), Text: f.text, Embedding: vec,
		Meta: Metadata{
			Type: DocMemory, Timestamp: s.now().UTC(), Source: in.Source, Scope: f.scope,
			Importance: f.importance, Tags: cleanTags(f.tags), Entity: f.entity,
			ConversationID: in.ConversationID, RoomID: in.RoomID, ExpiresAt: f.expiresAt, SourceIDs: in.SourceIDs,
			UserID: in.UserID, SubjectUserID: in.SubjectUserID, Times: mentionedTimes(f.text, s.now(), nil),
		},
	}, nil
}
